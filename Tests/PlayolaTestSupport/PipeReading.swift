import Foundation
import Glibc

extension FileHandle {
    /// The bytes there are now, or nil once the writer has gone or the read failed: in place of Foundation's
    /// `availableData`, which ends the whole test process on a read error (a `fatalError`), on a thread of
    /// the test's own that names no test. A readability handler takes itself off at nil.
    package func readAvailable() -> Data? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = Glibc.read(fileDescriptor, &buffer, buffer.count)
            if got > 0 { return Data(buffer[0..<got]) }
            if got < 0, errno == EINTR { continue }
            return nil
        }
    }
}
