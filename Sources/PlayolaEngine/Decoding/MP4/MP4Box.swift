import PlayolaSupport

/// One ISO-BMFF box: its type and where its payload lies.
struct MP4Box {
    var type: String
    /// Payload range (after the header) in the enclosing buffer or file.
    var payloadStart: Int
    var payloadEnd: Int

    /// The boxes in `bytes[start..<end]`, in order, read as they are iterated (a hostile `moov` of millions
    /// of empty boxes is walked, never collected). A box that claims more bytes than there are ends the list.
    static func children(of bytes: [UInt8], from start: Int, to end: Int) -> MP4Children {
        MP4Children(reader: ByteReader(bytes, from: start, to: end))
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

/// The boxes of a range of bytes, one after the other; each iteration starts again from the first.
struct MP4Children: Sequence, IteratorProtocol {
    fileprivate var reader: ByteReader

    var first: MP4Box? {
        var copy = self
        return copy.next()
    }

    mutating func next() -> MP4Box? {
        guard reader.remaining >= 8 else { return nil }
        let boxStart = reader.position
        let available = reader.end - boxStart
        guard let size32 = reader.u32(), let type = reader.fourCC() else { return nil }
        var size = Int(size32)
        if size32 == 1 {
            guard let large = reader.u64(), large <= UInt64(available) else { return nil }
            size = Int(large)
        } else if size32 == 0 {
            size = available
        }
        let headerLength = reader.position - boxStart
        guard size >= headerLength, size <= available else { return nil }
        reader.position = boxStart + size
        return MP4Box(type: type, payloadStart: boxStart + headerLength, payloadEnd: boxStart + size)
    }
}

/// A top-level box of a file, found with `pread` so that `mdat` is never loaded.
struct MP4TopLevelBox {
    var offset: Int64
    var size: Int64
    var headerLength: Int

    /// Real files have a handful of top-level boxes; a file of millions of empty ones is not worth reading.
    static let maxBoxesScanned = 1024

    /// The first top-level box of `type`, or nil. Sizes are checked against the file's: a box that runs past
    /// the end is returned with its claimed size (the caller decides), and ends the scan.
    static func find(_ type: String, in file: FileDescriptor, fileSize: Int64) throws(MP4FieldError) -> MP4TopLevelBox? {
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        for _ in 0..<maxBoxesScanned {
            guard fileSize - offset >= 8 else { return nil }
            let got = header.withUnsafeMutableBytes { (try? file.read(into: $0, at: offset)) ?? 0 }
            guard got >= 8 else { return nil }
            var reader = ByteReader(Array(header[0..<got]))
            guard let size32 = reader.u32(), let boxType = reader.fourCC() else { return nil }
            var size = Int64(size32)
            if size32 == 1 {
                guard let large = reader.u64() else { return nil }
                size = Int64(clamping: large)
            } else if size32 == 0 {
                size = fileSize - offset
            }
            let box = MP4TopLevelBox(offset: offset, size: size, headerLength: reader.position)
            guard size >= Int64(box.headerLength) else {
                throw MP4FieldError(field: "'\(boxType)' box at byte \(offset)", problem: "size \(size) is smaller than its header")
            }
            if boxType == type { return box }
            guard size <= fileSize - offset else { return nil }
            offset += size
        }
        throw MP4FieldError(field: "top level", problem: "no '\(type)' box among the first \(maxBoxesScanned) boxes")
    }
}

/// A box or field of an MP4 file that is out of range, named as the format names it.
struct MP4FieldError: Error {
    var field: String
    var problem: String
    /// A well-formed file of a codec we do not decode, rather than a broken one.
    var isUnsupported = false

    static func unsupportedCodec(_ type: String) -> MP4FieldError {
        MP4FieldError(field: "stsd", problem: "audio codec '\(type)' (only AAC is supported in MP4)", isUnsupported: true)
    }

    static func durationOverflow(_ box: String) -> MP4FieldError {
        MP4FieldError(field: box, problem: "the durations add up to more than 2^63 ticks")
    }

    func named(_ path: String) -> AudioDecoderError {
        isUnsupported ? .unsupported(path: path, reason: problem) : .malformed(path: path, field: field, problem: problem)
    }
}

extension Int64 {
    /// `self + duration`, two durations of a file's boxes, or the error naming `box` when the sum passes 2^63.
    func addingDuration(_ duration: Int64, of box: String) throws(MP4FieldError) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(duration)
        guard !overflow else { throw MP4FieldError.durationOverflow(box) }
        return sum
    }
}
