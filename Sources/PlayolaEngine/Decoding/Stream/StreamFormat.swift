import PlayolaSupport

/// The audio codecs an internet radio stream arrives in.
public enum StreamFormat: String, Sendable, Equatable {
    case mp3, aac, ogg

    /// From a `Content-Type` value (parameters and case ignored); nil for anything that is not one of these.
    public init?(contentType: String) {
        switch Self.mediaType(contentType) {
        case "audio/mpeg", "audio/mp3": self = .mp3
        case "audio/aac", "audio/aacp", "audio/x-aac": self = .aac
        case "application/ogg", "audio/ogg": self = .ogg
        default: return nil
        }
    }

    /// From the stream's first bytes, for servers that send no content type or a wrong one.
    public static func sniff(_ first: [UInt8]) -> StreamFormat? {
        if first.starts(with: Array("OggS".utf8)) { return .ogg }
        if first.starts(with: Array("ID3".utf8)) { return .mp3 }
        // Both are frame syncs of set bits; the layer field (bits 1-2 of byte 1) is 00 only in ADTS, whose
        // sync is a bit longer (12 bits against MPEG's 11).
        guard first.count >= 2, first[0] == 0xFF, first[1] & 0xE0 == 0xE0 else { return nil }
        let layer = (first[1] >> 1) & 0x3
        if layer != 0 { return .mp3 }
        return first[1] & 0xF0 == 0xF0 ? .aac : nil
    }

    /// The media type of a `Content-Type` value, lowercased, without parameters.
    package static func mediaType(_ contentType: String) -> String {
        String(contentType.prefix { $0 != ";" }).trimmingWhitespace().lowercased()
    }
}
