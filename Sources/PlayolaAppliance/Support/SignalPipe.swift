import Glibc
import PlayolaEngine

/// Signals as bytes on a pipe: the handler only writes the signal number (async-signal-safe), and a
/// thread of ours reads it and acts. Unlike sigwait, this does not depend on every thread of the
/// process — the Swift runtime's and libdispatch's included — having the signal blocked.
package enum SignalPipe {
    nonisolated(unsafe) private static var fds: [Int32] = [-1, -1]
    nonisolated(unsafe) private static var writeEnd: Int32 = -1

    /// Installs handlers for `signals`; returns the read end.
    package static func install(_ signals: [Int32]) -> Int32 {
        pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        writeEnd = fds[1]
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalPipe.writeEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signal, &action, nil)
        }
        return fds[0]
    }

    /// Blocks until a signal arrives; returns its number.
    package static func wait(_ readEnd: Int32) -> Int32 {
        var byte: UInt8 = 0
        while (try? retryOnInterrupt({ read(readEnd, &byte, 1) })) != 1 {}
        return Int32(byte)
    }
}
