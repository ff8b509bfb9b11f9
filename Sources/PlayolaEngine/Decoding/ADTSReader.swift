import Glibc

/// Indexes a raw AAC file of ADTS frames: each frame's offset and length, from the headers alone.
/// Headers are read through a window of the file, so a file of millions of tiny frames costs few reads.
enum ADTSReader {
    static let sampleRates: [Int64] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    static func read(path: String) throws(AudioDecoderError) -> AACTrack {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var offsets: [Int64] = []
        var sizes: [UInt32] = []
        var rate: Int64 = 0
        var blocksPerFrame: Int64 = 1
        var window = FileWindow(fd: fd)
        var offset: Int64 = 0
        var truncated = false
        while true {
            let header = window.bytes(at: offset, count: 7)
            if header.isEmpty { break }
            guard header.count == 7, header[0] == 0xFF, header[1] & 0xF6 == 0xF0 else {
                if offsets.isEmpty { throw .invalid(path: path, reason: "no ADTS frame at the start") }
                truncated = header.count < 7
                break
            }
            let rateIndex = Int((header[2] >> 2) & 0x0F)
            let length = Int64(header[3] & 0x03) << 11 | Int64(header[4]) << 3 | Int64(header[5] >> 5)
            guard rateIndex < sampleRates.count, length >= 7 else {
                throw .invalid(path: path, reason: "bad ADTS header at byte \(offset)")
            }
            guard offsets.count < DecodeLimits.maxUnits else {
                throw .malformed(path: path, field: "ADTS", problem: "more than \(DecodeLimits.maxUnits) frames")
            }
            if offsets.isEmpty {
                rate = sampleRates[rateIndex]
                blocksPerFrame = Int64(header[6] & 0x03) + 1
            }
            offsets.append(offset)
            sizes.append(UInt32(length))
            offset += length
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
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start: Int64 = 0
    private var count = 0

    init(fd: Int32) { self.fd = fd }

    var fileSize: Int64 {
        var stats = stat()
        return fstat(fd, &stats) == 0 ? Int64(stats.st_size) : 0
    }

    /// Up to `length` bytes at `offset` (fewer at the end of the file).
    mutating func bytes(at offset: Int64, count length: Int) -> [UInt8] {
        if offset < start || offset + Int64(length) > start + Int64(count) {
            start = offset
            count = max(0, buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) })
        }
        let from = Int(offset - start)
        return Array(buffer[from..<min(count, from + length)])
    }
}
