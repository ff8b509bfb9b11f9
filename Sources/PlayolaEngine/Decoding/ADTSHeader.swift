/// One ADTS frame header (ISO/IEC 14496-3, 1.A.2.2), read where a file or a stream says a frame starts.
struct ADTSHeader {
    /// The whole frame, header included, in bytes.
    let frameLength: Int
    let sampleRate: Int64
    /// Access units in the frame (number_of_raw_data_blocks_in_frame + 1).
    let blocks: Int64

    /// sampling_frequency_index → Hz (ISO/IEC 14496-3, table 1.18); 13 and 14 are reserved, and 15 (an explicit
    /// rate) cannot appear in ADTS, whose header has no room for one.
    static let sampleRates: [Int64] = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Whether `bytes[index...]` starts with the ADTS sync word (12 ones) and layer 0.
    static func hasSync(_ bytes: [UInt8], at index: Int) -> Bool {
        bytes.count - index >= 2 && bytes[index] == 0xFF && bytes[index + 1] & 0xF6 == 0xF0
    }

    /// The header at `bytes[index...]`, or nil unless seven bytes are there with the sync word, a rate the table
    /// has, and a frame longer than its header (7 bytes, or 9 with a CRC).
    init?(_ bytes: [UInt8], at index: Int) {
        guard index >= 0, bytes.count - index >= 7, Self.hasSync(bytes, at: index) else { return nil }
        let rateIndex = Int((bytes[index + 2] >> 2) & 0x0F)
        guard rateIndex < Self.sampleRates.count else { return nil }
        let length = Int(bytes[index + 3] & 0x03) << 11 | Int(bytes[index + 4]) << 3 | Int(bytes[index + 5] >> 5)
        let headerSize = bytes[index + 1] & 0x01 == 1 ? 7 : 9
        guard length > headerSize else { return nil }
        frameLength = length
        sampleRate = Self.sampleRates[rateIndex]
        blocks = Int64(bytes[index + 6] & 0x03) + 1
    }
}
