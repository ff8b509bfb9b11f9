import Glibc

/// One ISO-BMFF box: its type and where its payload lies.
struct MP4Box {
    var type: String
    /// Payload range (after the header) in the enclosing buffer or file.
    var payloadStart: Int
    var payloadEnd: Int

    /// The boxes in `bytes[start..<end]`, in order. A box that claims more bytes than there are ends the list.
    static func children(of bytes: [UInt8], from start: Int, to end: Int) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var reader = ByteReader(bytes, from: start, to: end)
        while reader.remaining >= 8 {
            let boxStart = reader.position
            guard let size32 = reader.u32(), let type = reader.fourCC() else { break }
            var size = Int(size32)
            if size32 == 1 {
                guard let large = reader.u64(), large <= UInt64(Int.max) else { break }
                size = Int(large)
            } else if size32 == 0 {
                size = end - boxStart
            }
            let headerLength = reader.position - boxStart
            guard size >= headerLength, boxStart + size <= end else { break }
            boxes.append(MP4Box(type: type, payloadStart: reader.position, payloadEnd: boxStart + size))
            reader.position = boxStart + size
        }
        return boxes
    }

    /// The first child of `self` with `type` (payload offset by `skip` bytes for full boxes' headers).
    func child(_ type: String, in bytes: [UInt8], skip: Int = 0) -> MP4Box? {
        Self.children(of: bytes, from: payloadStart + skip, to: payloadEnd).first { $0.type == type }
    }

    /// Follows a path of box types, e.g. `["mdia", "minf", "stbl"]`.
    func descendant(_ path: [String], in bytes: [UInt8]) -> MP4Box? {
        var box: MP4Box? = self
        for type in path { box = box?.child(type, in: bytes) }
        return box
    }
}

/// The top-level boxes of a file, read with `pread` so that `mdat` is never loaded.
struct MP4TopLevel {
    var boxes: [(type: String, offset: Int64, size: Int64, headerLength: Int)]
    var fileSize: Int64

    static func scan(fd: Int32) -> MP4TopLevel {
        var stats = stat()
        fstat(fd, &stats)
        let fileSize = Int64(stats.st_size)
        var boxes: [(String, Int64, Int64, Int)] = []
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        while offset + 8 <= fileSize {
            let got = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 16, off_t(offset)) }
            guard got >= 8 else { break }
            var reader = ByteReader(Array(header[0..<got]))
            guard let size32 = reader.u32(), let type = reader.fourCC() else { break }
            var size = Int64(size32)
            if size32 == 1 {
                guard let large = reader.u64() else { break }
                size = Int64(clamping: large)
            } else if size32 == 0 {
                size = fileSize - offset
            }
            let headerLength = reader.position
            guard size >= Int64(headerLength) else { break }
            boxes.append((type, offset, size, headerLength))
            offset += size
        }
        return MP4TopLevel(boxes: boxes, fileSize: fileSize)
    }
}
