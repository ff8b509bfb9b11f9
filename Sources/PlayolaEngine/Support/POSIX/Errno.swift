import Glibc

/// An errno value, as the POSIX layer throws it; its description is strerror's text, so an error message
/// built from it reads as the C library's would.
package struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's errno, read now: call it right after the failing call.
    package static var current: Errno { Errno(errno) }

    package var description: String { String(cString: strerror(rawValue)) }

    package static let interrupted = Errno(EINTR)
    package static let wouldBlock = Errno(EAGAIN)
    package static let noEntry = Errno(ENOENT)
    package static let notDirectory = Errno(ENOTDIR)
    package static let exists = Errno(EEXIST)
    package static let noSpace = Errno(ENOSPC)
}

/// Calls `body`, a system call that returns -1 and sets errno on failure, again for as long as it fails
/// with EINTR (a signal arrived before it did anything); any other failure is thrown as its errno.
package func retryOnInterrupt<Result: FixedWidthInteger & SignedInteger>(_ body: () -> Result) throws(Errno) -> Result {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let error = Errno.current
        guard error == .interrupted else { throw error }
    }
}
