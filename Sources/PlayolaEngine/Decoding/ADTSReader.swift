import PlayolaSupport

/// Indexes a raw AAC file of ADTS frames: each frame's offset and length, from the headers alone.
/// Headers are read through a window of the file, so a file of millions of tiny frames costs few reads.
enum ADTSReader {
    static func read(path: String) throws(AudioDecoderError) -> AACTrack {
        let file = try FileDescriptor.reading(path)
        defer { file.close() }
        var offsets: [Int64] = []
        var sizes: [UInt32] = []
        var rate: Int64 = 0
        var blocksPerFrame: Int64 = 1
        var window = FileWindow(file: file)
        var offset: Int64 = 0
        var truncated = false
        while true {
            let header = window.bytes(at: offset, count: 7)
            if header.isEmpty { break }
            guard header.count == 7, ADTSHeader.hasSync(header, at: 0) else {
                if offsets.isEmpty { throw .invalid(path: path, reason: "no ADTS frame at the start") }
                truncated = header.count < 7
                break
            }
            guard let frame = ADTSHeader(header, at: 0) else {
                throw .invalid(path: path, reason: "bad ADTS header at byte \(offset)")
            }
            guard offsets.count < DecodeLimits.maxUnits else {
                throw .malformed(path: path, field: "ADTS", problem: "more than \(DecodeLimits.maxUnits) frames")
            }
            if offsets.isEmpty {
                rate = frame.sampleRate
                blocksPerFrame = frame.blocks
            }
            offsets.append(offset)
            sizes.append(UInt32(frame.frameLength))
            offset += Int64(frame.frameLength)
        }
        let fileSize = window.fileSize
        let missing = offsets.indices.first { offsets[$0] + Int64(sizes[$0]) > fileSize }
        return AACTrack(
            decoderConfig: nil, unitOffsets: offsets, unitSizes: sizes, unitDuration: 1024 * blocksPerFrame,
            timescale: rate, priming: 0, validDuration: nil, firstMissingUnit: truncated ? offsets.count : missing)
    }
}

/// Sequential reads of small pieces of a file through a 64 KiB buffer.
private struct FileWindow {
    let file: FileDescriptor
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start: Int64 = 0
    private var count = 0

    init(file: FileDescriptor) { self.file = file }

    var fileSize: Int64 { (try? file.size()) ?? 0 }

    /// Up to `length` bytes at `offset` (fewer at the end of the file).
    mutating func bytes(at offset: Int64, count length: Int) -> [UInt8] {
        if offset < start || offset + Int64(length) > start + Int64(count) {
            start = offset
            count = buffer.withUnsafeMutableBytes { (try? file.read(into: $0, at: offset)) ?? 0 }
        }
        let from = Int(offset - start)
        return Array(buffer[from..<min(count, from + length)])
    }
}
