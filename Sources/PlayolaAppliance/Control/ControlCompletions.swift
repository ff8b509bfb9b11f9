import Glibc
import PlayolaEngine
import Synchronization

/// Answers finished by the control commands' tasks, waiting for `ControlLoop`; a byte on the pipe wakes
/// the loop's poll.
final class ControlCompletions: Sendable {
    private let answers = Mutex<[(client: Int, answer: String)]>([])
    let readEnd: Int32
    private let writeEnd: Int32

    init() throws(ControlError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .usage("control socket: pipe: \(Errno.current)") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    func post(_ answer: String, to client: Int) {
        answers.withLock { $0.append((client, answer)) }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1) // a full pipe already holds a wake-up
    }

    func take() -> [(client: Int, answer: String)] {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(readEnd, &drain, drain.count) > 0 {}
        return answers.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }
}
