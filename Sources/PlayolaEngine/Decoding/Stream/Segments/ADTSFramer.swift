/// Writes the 7-byte ADTS header (read back by `ADTSHeader`) for raw AAC frames of one AudioSpecificConfig
/// (ISO 14496-3 1.6.2.1), so that frames from an MP4 container can be read as an ADTS stream.
struct ADTSFramer {
    /// ADTS's profile field: the object type less one (AAC Main, LC, SSR, LTP).
    let profile: UInt8
    let frequencyIndex: UInt8
    let channelConfiguration: UInt8

    /// HE-AAC (object types 5 and 29) is written as its AAC-LC core at the core's rate: faad2 finds the
    /// SBR and PS data in the frames, as it does in an ADTS broadcast.
    init(audioSpecificConfig config: [UInt8]) throws(MP4FieldError) {
        var bits = BitReader(config)
        var objectType = bits.objectType()
        guard let frequencyIndex = bits.read(4), frequencyIndex != 15, let channels = bits.read(4) else {
            throw MP4FieldError(field: "esds", problem: "an AudioSpecificConfig with an explicit rate (ADTS cannot carry it)", isUnsupported: true)
        }
        if objectType == 5 || objectType == 29 {
            guard let extensionIndex = bits.read(4), extensionIndex != 15 || bits.read(24) != nil else {
                throw MP4FieldError(field: "esds", problem: "a truncated AudioSpecificConfig")
            }
            objectType = bits.objectType()
        }
        guard let objectType, (1...4).contains(objectType) else {
            throw MP4FieldError(field: "esds", problem: "AAC object type \(objectType.map(String.init) ?? "?") in a fragmented stream (AAC LC and HE-AAC play)", isUnsupported: true)
        }
        guard (1...7).contains(channels) else {
            throw MP4FieldError(field: "esds", problem: "channel configuration \(channels)", isUnsupported: true)
        }
        profile = UInt8(objectType - 1)
        self.frequencyIndex = UInt8(frequencyIndex)
        channelConfiguration = UInt8(channels)
    }

    /// Writes the header of a frame of `frameLength` bytes of AAC into `header` (7 bytes); false when the
    /// frame is too long for ADTS's 13-bit length.
    func write(frameLength: Int, into header: inout [UInt8]) -> Bool {
        let length = frameLength + 7
        guard frameLength > 0, length < 1 << 13 else { return false }
        header[0] = 0xFF
        header[1] = 0xF1  // MPEG-4, layer 0, no CRC
        header[2] = profile << 6 | frequencyIndex << 2 | channelConfiguration >> 2
        header[3] = (channelConfiguration & 0x3) << 6 | UInt8(length >> 11)
        header[4] = UInt8((length >> 3) & 0xFF)
        header[5] = UInt8((length & 0x7) << 5) | 0x1F
        header[6] = 0xFC
        return true
    }
}

/// Reads bits, most significant first, from a short byte array; nil past its end.
private struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int? {
        guard position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    /// An audio object type: five bits, or 32 plus six more after the escape value 31.
    mutating func objectType() -> Int? {
        guard let type = read(5) else { return nil }
        return type == 31 ? read(6).map { 32 + $0 } : type
    }
}
