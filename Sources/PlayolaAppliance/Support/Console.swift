import Glibc
import PlayolaEngine

/// Whole lines straight to a file descriptor: no stdio buffering between the service and journald or a pipe.
package enum Console {
    package static func out(_ line: String) { write(line, to: 1) }
    package static func error(_ line: String) { write(line, to: 2) }

    private static func write(_ line: String, to fd: Int32) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = try? FileDescriptor(rawValue: fd).writeAll(UnsafeRawBufferPointer(bytes)) }
    }
}
