import Glibc

/// An open file descriptor, in swift-system's manner: calls retried on EINTR, failures thrown as `Errno`,
/// whole reads and writes. A value: the owner closes it once.
package struct FileDescriptor: Hashable, Sendable {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// `open(2)` with O_CLOEXEC always added: no descriptor of the appliance leaks into a child.
    package static func open(_ path: String, _ flags: Int32, permissions: mode_t = 0) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryOnInterrupt { Glibc.open(path, flags | O_CLOEXEC, permissions) })
    }

    /// Never retried: Linux releases the descriptor even when close is interrupted, and a retry could close
    /// one another thread has just been given.
    package func close() { _ = Glibc.close(rawValue) }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        try retryOnInterrupt { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        try retryOnInterrupt { Glibc.write(rawValue, bytes.baseAddress, bytes.count) }
    }

    /// `pwrite(2)`: at `offset`, the file position unchanged.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        try retryOnInterrupt { pwrite(rawValue, bytes.baseAddress, bytes.count, off_t(offset)) }
    }

    /// Reads until `buffer` is full or the file ends; the bytes read.
    package func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        var done = 0
        while done < buffer.count {
            let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]))
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// The rest of the file; nil as soon as it is longer than `limit`, so a wrong path (a device) never sizes
    /// an allocation.
    package func readAll(limit: Int) throws(Errno) -> [UInt8]? {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16384, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let got = try read(into: chunk)
            if got == 0 { return bytes }
            guard bytes.count + got <= limit else { return nil }
            bytes += chunk[0..<got]
        }
    }

    /// Writes every byte (at `offset` when given, else at the file position), again after a short write; a
    /// write that takes nothing is ENOSPC.
    package func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) throws(Errno) {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let count = if let offset { try write(rest, at: offset + Int64(done)) } else { try write(rest) }
            guard count > 0 else { throw .noSpace }
            done += count
        }
    }

    package func sync() throws(Errno) {
        _ = try retryOnInterrupt { fsync(rawValue) }
    }

    /// The file's size now, from fstat.
    package func size() throws(Errno) -> Int64 {
        var stats = stat()
        _ = try retryOnInterrupt { fstat(rawValue, &stats) }
        return Int64(stats.st_size)
    }
}
