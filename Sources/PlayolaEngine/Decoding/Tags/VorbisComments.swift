import PlayolaSupport

/// The tags of an Ogg stream (Vorbis comments: `TITLE=…`, `ARTIST=…`), as both Vorbis (its second header)
/// and Opus (`OpusTags`) carry them after their own magic bytes.
struct VorbisComments {
    private(set) var fields: [(key: String, value: String)] = []

    /// Parses the comment block that starts `skipping` bytes into `packet`; nil when a length runs past the
    /// packet (the stream's bytes are from outside: every length is checked before it is used).
    init?(_ packet: UnsafeRawBufferPointer, skipping: Int) {
        var reader = LittleEndianReader(packet, at: skipping)
        guard let vendorLength = reader.uint32(), reader.skip(Int(vendorLength)), let count = reader.uint32() else { return nil }
        for _ in 0..<count {
            guard let length = reader.uint32(), let bytes = reader.bytes(Int(length)) else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            fields.append((text[..<equals].uppercased(), String(text[text.index(after: equals)...])))
        }
    }

    init() {}

    func first(_ key: String) -> String? {
        fields.first { $0.key == key }.map { $0.value.trimmingWhitespace() }.flatMap { $0.isEmpty ? nil : $0 }
    }

    var tags: StreamTags { StreamTags(artist: first("ARTIST"), title: first("TITLE")) }
}
