import PlayolaSupport

/// An ID3 tag's title and artist: ID3v2 (`TIT2`/`TPE1`, or v2.2's `TT2`/`TP1`) at the start of MP3 files,
/// of HLS packed-audio segments and in HLS timed metadata; ID3v1 at the end of old MP3 files. Every size is
/// from outside and checked against the bytes.
package enum ID3Tag {
    /// The length of the ID3v2 tag at the start of `bytes` (header, frames and footer), or nil when there is
    /// none or it claims more bytes than there are.
    package static func length(at bytes: ArraySlice<UInt8>) -> Int? {
        guard let length = declaredLength(bytes) else { return nil }
        return length <= bytes.count ? length : nil
    }

    private static func declaredLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        let start = bytes.startIndex
        guard bytes.count >= 10, bytes[start] == 0x49, bytes[start + 1] == 0x44, bytes[start + 2] == 0x33,
              let size = syncsafe(bytes[(start + 6)..<(start + 10)])
        else { return nil }
        return 10 + size + (bytes[start + 5] & 0x10 != 0 ? 10 : 0)
    }

    /// The tags of the ID3v2 tag at the start of `bytes` (as far as `bytes` holds it: cover art after the
    /// titles need not be read); nil when there is no tag, or no title or artist in it.
    package static func tags(in bytes: ArraySlice<UInt8>) -> StreamTags? {
        guard let declared = declaredLength(bytes) else { return nil }
        let start = bytes.startIndex
        let end = start + min(declared, bytes.count)
        let version = bytes[start + 3]
        guard (2...4).contains(version) else { return nil }
        let (idLength, headerLength) = version == 2 ? (3, 6) : (4, 10)
        var at = start + 10
        if version > 2, bytes[start + 5] & 0x40 != 0 {  // an extended header: skip it
            guard at + 4 <= end, let size = version == 4 ? syncsafe(bytes[at..<at + 4]) : Int(bigEndian: bytes[at..<at + 4]) else { return nil }
            at += version == 4 ? size : size + 4
        }
        var tags = StreamTags(artist: nil, title: nil)
        while at + headerLength <= end, bytes[at] != 0 {
            let id = String(decoding: bytes[at..<at + idLength], as: UTF8.self)
            let sizeBytes = bytes[(at + idLength)..<(at + idLength + (version == 2 ? 3 : 4))]
            guard let size = version == 4 ? syncsafe(sizeBytes) : Int(bigEndian: sizeBytes), size <= end - at - headerLength else { break }
            let body = bytes[(at + headerLength)..<(at + headerLength + size)]
            switch id {
            case "TIT2", "TT2": tags.title = text(body)
            case "TPE1", "TP1": tags.artist = text(body)
            default: break
            }
            at += headerLength + size
        }
        return tags.text == nil ? nil : tags
    }

    /// The ID3v1 tag in the last 128 bytes of a file (`TAG`, 30 bytes of title, 30 of artist, Latin-1).
    package static func version1Tags(in last128: ArraySlice<UInt8>) -> StreamTags? {
        let start = last128.startIndex
        guard last128.count == 128, last128.starts(with: [0x54, 0x41, 0x47]) else { return nil }
        let tags = StreamTags(artist: latin1(last128[(start + 33)..<(start + 63)]), title: latin1(last128[(start + 3)..<(start + 33)]))
        return tags.text == nil ? nil : tags
    }

    /// ISO-8859-1 as the standard says, unless the bytes are valid UTF-8 (as ffmpeg and many taggers write
    /// even where Latin-1 is meant): the same fallback as ICY titles.
    private static func latin1(_ field: ArraySlice<UInt8>) -> String? {
        let bytes = field.prefix { $0 != 0 }
        let utf8 = String(validating: bytes, as: UTF8.self)
        let text = (utf8 ?? String(bytes.map { Character(Unicode.Scalar($0)) })).trimmingWhitespace()
        return text.isEmpty ? nil : text
    }

    /// The most of a text frame decoded: a title is cut to `ICYMetadata.maxLength` characters in the end,
    /// and a frame may claim megabytes.
    static let maxTextBytes = 4096

    /// A text frame's first string in its encoding (ISO-8859-1, UTF-16 with a BOM, UTF-16BE, UTF-8).
    private static func text(_ body: ArraySlice<UInt8>) -> String? {
        guard let encoding = body.first else { return nil }
        var payload = body.dropFirst().prefix(maxTextBytes)
        if payload.count < body.count - 1, encoding == 0 || encoding == 3 {
            // Cut inside a UTF-8 sequence, the rest would not validate and be read as Latin-1.
            while let last = payload.last, last & 0xC0 == 0x80 { payload.removeLast() }
            if let last = payload.last, last >= 0xC0 { payload.removeLast() }
        }
        let string: String
        switch encoding {
        case 0: return latin1(payload)
        case 1, 2:
            var units = stride(from: payload.startIndex, to: payload.endIndex - 1, by: 2).map { UInt16(payload[$0]) << 8 | UInt16(payload[$0 + 1]) }
            var bigEndian = encoding == 2
            if units.first == 0xFEFF { units.removeFirst(); bigEndian = true } else if units.first == 0xFFFE { units.removeFirst(); bigEndian = false }
            if !bigEndian { units = units.map(\.byteSwapped) }
            string = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
        case 3: string = String(decoding: payload.prefix { $0 != 0 }, as: UTF8.self)
        default: return nil
        }
        let trimmed = string.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Four bytes of seven bits each; nil when a high bit is set (not a syncsafe number).
    private static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.allSatisfy({ $0 & 0x80 == 0 }) else { return nil }
        return bytes.reduce(0) { $0 << 7 | Int($1) }
    }
}

private extension Int {
    init?(bigEndian bytes: ArraySlice<UInt8>) {
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value <= UInt64(Int32.max) else { return nil }
        self = Int(value)
    }
}
