import Glibc

/// Indexes a raw AAC file of ADTS frames: each frame's offset and length, from the headers alone.
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
        var header = [UInt8](repeating: 0, count: 7)
        var offset: Int64 = 0
        var truncated = false
        while true {
            let got = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 7, off_t(offset)) }
            if got == 0 { break }
            guard got == 7, header[0] == 0xFF, header[1] & 0xF6 == 0xF0 else {
                if offsets.isEmpty { throw .invalid(path: path, reason: "no ADTS frame at the start") }
                truncated = got < 7
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
        var stats = stat()
        fstat(fd, &stats)
        let missing = offsets.indices.first { offsets[$0] + Int64(sizes[$0]) > Int64(stats.st_size) }
        return AACTrack(
            decoderConfig: nil, unitOffsets: offsets, unitSizes: sizes, unitDuration: 1024 * blocksPerFrame,
            timescale: rate, priming: 0, validDuration: nil, firstMissingUnit: truncated ? offsets.count : missing)
    }
}
