import Glibc

/// A pipe one thread signals and another polls beside its other descriptors: how the decode thread wakes
/// the render thread out of its wait for the device (a start from silence must not wait for a period).
/// A signal before the wait stays pending, so none is lost between a check and the poll.
public final class WakeEvent: Sendable {
    /// Polled for POLLIN.
    public let descriptor: Int32
    private let writeEnd: Int32

    /// Without descriptors left in the process, both ends are -1: poll ignores a negative descriptor, so the
    /// waiter only waits for its device, as it would without this.
    package init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        for end in ends where end >= 0 {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        (descriptor, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        _ = close(descriptor)
        _ = close(writeEnd)
    }

    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1) // a full pipe holds a wake-up already
    }

    /// Forgets the signals so far: the next poll waits for a new one. Never allocates (the render thread).
    public func clear() {
        var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}
