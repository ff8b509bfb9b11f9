import Glibc
import PlayolaEngine
import Synchronization

/// Items handed to a poll(2) loop from other threads (the answers its commands' tasks finish, the changes the
/// status feed publishes): kept under a lock, with a byte on a pipe that wakes the loop's poll.
package final class Mailbox<Item: Sendable>: Sendable {
    private let items = Mutex<[Item]>([])
    /// The loop polls this for POLLIN.
    package let readEnd: Int32
    private let writeEnd: Int32

    package init() throws(ControlError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .usage("pipe: \(Errno.current)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    package func post(_ item: Item) {
        items.withLock { $0.append(item) }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1) // a full pipe already holds a wake-up
    }

    /// Everything posted since the last call, in order; drains the wake-ups.
    package func take() -> [Item] {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &drain, drain.count) > 0 {}
        return items.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }
}

/// A command's answer for the loop's client `client`.
package struct Completion: Sendable {
    package var client: Int
    package var answer: String

    package init(client: Int, answer: String) { (self.client, self.answer) = (client, answer) }
}
