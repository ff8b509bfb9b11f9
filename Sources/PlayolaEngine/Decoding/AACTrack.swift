/// An AAC elementary stream as a table of access units, whatever the container (MP4 or ADTS).
struct AACTrack {
    /// The AudioSpecificConfig from `esds`; nil for ADTS, whose frames carry their own headers.
    var decoderConfig: [UInt8]?
    var unitOffsets: [Int64]
    var unitSizes: [UInt32]
    /// Duration of one access unit, in `timescale` units (1024 for AAC-LC at the track's rate).
    var unitDuration: Int64
    var timescale: Int64
    /// Encoder delay to drop from the decoder's output, in `timescale` units.
    var priming: Int64
    /// Frames of real audio after the priming (the rest is padding), in `timescale` units, if known.
    var validDuration: Int64?
    /// The first access unit that lies (partly) beyond the end of the file, if any.
    var firstMissingUnit: Int?
}

/// Reads big-endian fields out of a byte array; every read is bounds-checked.
struct ByteReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.position = start
        self.end = min(end ?? bytes.count, bytes.count)
    }

    var remaining: Int { end - position }

    mutating func u8() -> UInt8? {
        guard position < end else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() -> UInt16? { uint(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { uint(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { uint(8) }

    mutating func uint(_ count: Int) -> UInt64? {
        guard remaining >= count else { return nil }
        var value: UInt64 = 0
        for index in 0..<count { value = value << 8 | UInt64(bytes[position + index]) }
        position += count
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }

    mutating func fourCC() -> String? {
        guard remaining >= 4 else { return nil }
        defer { position += 4 }
        return String(decoding: bytes[position..<position + 4], as: UTF8.self)
    }
}
