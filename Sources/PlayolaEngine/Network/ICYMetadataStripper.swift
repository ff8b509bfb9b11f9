import PlayolaDecoding
import PlayolaSupport

/// What an ICY (SHOUTcast/Icecast) stream announced about the song now on air.
public struct ICYMetadata: Sendable, Equatable {
    public var title: String
    /// The halves of "Artist - Song"; both nil when the title has no " - ", because guessing would mislabel it.
    public var artist: String?
    public var song: String?
    public var url: String?

    /// The longest title, artist or song kept, in characters: each is a line of status and of the log, and a
    /// server may send 4 KB of title in every ICY block, or 255 KB in one ID3 frame. Longer ones are cut, "…".
    public static let maxLength = 200

    public init(title: String, url: String? = nil) {
        self.title = Self.capped(title)
        self.url = url.map(Self.capped)
        if let dash = title.firstRange(of: " - ") {
            artist = ICYText.nonEmpty(title[..<dash.lowerBound]).map(Self.capped)
            song = ICYText.nonEmpty(title[dash.upperBound...]).map(Self.capped)
        }
    }

    /// A title whose halves are known (a stream's own tags), not guessed from " - ".
    public init(title: String, artist: String?, song: String?) {
        self.title = Self.capped(title)
        self.artist = artist.map(Self.capped)
        self.song = song.map(Self.capped)
    }

    private static func capped(_ text: String) -> String { text.cut(to: maxLength) }
}

public enum ICYError: Error, Equatable, CustomStringConvertible {
    /// An `icy-metaint` that is not a positive whole number: the metadata blocks cannot be located in the stream.
    case invalidMetaint(String)

    public var description: String {
        switch self {
        case .invalidMetaint(let value): "icy-metaint '\(value)' is not a positive number of bytes"
        }
    }
}

/// Separates the audio of an ICY stream from the metadata blocks interleaved with it: after every `metaint`
/// audio bytes comes one length byte (× 16) and that many bytes of NUL-padded `Key='value';` text.
/// Reads may split anything anywhere, so the position in that cycle is carried between calls.
public struct ICYMetadataStripper: Sendable {
    public let metaint: Int
    private var phase: Phase
    private var block: [UInt8] = []
    private var lastTitle: String?

    private enum Phase: Sendable {
        case audio(remaining: Int)
        case lengthByte
        case block(remaining: Int)
    }

    public init(metaint: Int) throws(ICYError) {
        guard metaint > 0 else { throw .invalidMetaint(String(metaint)) }
        self.metaint = metaint
        phase = .audio(remaining: metaint)
    }

    /// True when the bytes so far end inside a metadata block: if the stream stops here, it was cut short.
    public var isMidBlock: Bool {
        if case .block = phase { true } else { false }
    }

    /// Hands each run of audio in `bytes` to `audio` (in order, as views into `bytes`) and returns the metadata
    /// whose title differs from the last one returned. If `audio` throws, the bytes before it are consumed and
    /// the rest of this read is not.
    public mutating func consume<E: Error>(
        _ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) -> [ICYMetadata] {
        var changes: [ICYMetadata] = []
        var at = 0
        while at < bytes.count {
            switch phase {
            case .audio(let remaining):
                let run = min(remaining, bytes.count - at)
                phase = run == remaining ? .lengthByte : .audio(remaining: remaining - run)
                let start = at
                at += run
                try audio(UnsafeRawBufferPointer(rebasing: bytes[start..<at]))
            case .lengthByte:
                let length = Int(bytes[at]) * 16
                at += 1
                block.removeAll(keepingCapacity: true)
                phase = length == 0 ? .audio(remaining: metaint) : .block(remaining: length)
            case .block(let remaining):
                let run = min(remaining, bytes.count - at)
                block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<at + run]))
                at += run
                guard run == remaining else {
                    phase = .block(remaining: remaining - run)
                    continue
                }
                phase = .audio(remaining: metaint)
                if let metadata = ICYText.metadata(block), metadata.title != lastTitle {
                    lastTitle = metadata.title
                    changes.append(metadata)
                }
            }
        }
        return changes
    }
}

/// The text inside a metadata block.
///
/// Parsed as bytes, in one pass plus one backward scan: the delimiters (`=`, `'`, `;`) are ASCII in UTF-8
/// and Latin-1 alike, so only the values wanted are decoded to text, and "is the rest of the block blank?"
/// is a comparison with the precomputed start of the trailing blanks instead of a scan per quote.
enum ICYText {
    static func metadata(_ block: [UInt8]) -> ICYMetadata? {
        let text = Array(block.prefix { $0 != 0 })
        let fields = pairs(text)
        guard let title = fields.last(where: { isKey(text, $0.key, "streamtitle") }) else { return nil }
        // One encoding for the whole block, as a server writes it: UTF-8 when all of it is, else Latin-1.
        let isUTF8 = String(validating: text, as: UTF8.self) != nil
        let value = { (range: Range<Int>) in decode(text[range], isUTF8: isUTF8) }
        let url = fields.last { isKey(text, $0.key, "streamurl") }.map { value($0.value) }
        return ICYMetadata(title: trimmed(value(title.value)[...]), url: url.flatMap { nonEmpty($0[...]) })
    }

    /// The spec says nothing of the encoding; newer servers send UTF-8, older ones Latin-1, and any byte
    /// string is valid Latin-1, so that is the fallback.
    private static func decode(_ bytes: ArraySlice<UInt8>, isUTF8: Bool) -> String {
        if isUTF8 { return String(decoding: bytes, as: UTF8.self) }
        return String(String.UnicodeScalarView(bytes.map(Unicode.Scalar.init)))
    }

    /// `Key='value';` pairs, as ranges of `bytes`. Values are not escaped, so a `'` or `';` inside one is only
    /// the end when what follows is the end of the text or another `Key=`.
    static func pairs(_ bytes: [UInt8]) -> [(key: Range<Int>, value: Range<Int>)] {
        let quote = UInt8(ascii: "'"), semicolon = UInt8(ascii: ";"), equalsSign = UInt8(ascii: "=")
        // Every index from here on is blank: "nothing but blanks follows" is `index >= blankTail`.
        var blankTail = bytes.count
        while blankTail > 0, isBlank(bytes[blankTail - 1]) { blankTail -= 1 }
        var fields: [(key: Range<Int>, value: Range<Int>)] = []
        var at = 0
        while at < bytes.count {
            var equals = at
            while equals < bytes.count, bytes[equals] != equalsSign { equals += 1 }
            guard equals < bytes.count else { break }
            var start = equals + 1
            var end = start
            while end < bytes.count, bytes[end] != semicolon { end += 1 }
            var next = end + 1
            if start < bytes.count, bytes[start] == quote {
                start += 1
                (end, next) = (bytes.count, bytes.count)
                var close = start
                while close < bytes.count {
                    defer { close += 1 }
                    guard bytes[close] == quote else { continue }
                    if close + 1 >= blankTail {
                        end = close
                        break
                    }
                    if bytes[close + 1] == semicolon, close + 2 >= blankTail || startsPair(bytes, at: close + 2) {
                        (end, next) = (close, close + 2)
                        break
                    }
                }
            }
            fields.append((trimmedRange(bytes, at..<equals), start..<max(start, end)))
            at = next
        }
        return fields
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    private static func trimmedRange(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        var (low, high) = (range.lowerBound, range.upperBound)
        while low < high, isBlank(bytes[low]) { low += 1 }
        while high > low, isBlank(bytes[high - 1]) { high -= 1 }
        return low..<high
    }

    /// Whether `bytes[range]` is `name` (lowercase ASCII), ignoring ASCII case.
    private static func isKey(_ bytes: [UInt8], _ range: Range<Int>, _ name: StaticString) -> Bool {
        guard range.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { expected in
            zip(bytes[range], expected).allSatisfy { byte, wanted in
                // Split up: Swift 6.0.3 gives up type-checking it as one expression.
                let folded: UInt8 = byte | 0x20
                let isLetter = folded >= 0x61 && folded <= 0x7A
                return isLetter && folded == wanted
            }
        }
    }

    private static func startsPair(_ bytes: [UInt8], at index: Int) -> Bool {
        var at = index
        while at < bytes.count, bytes[at] == 0x20 { at += 1 }
        let nameStart = at
        while at < bytes.count, isNameByte(bytes[at]) { at += 1 }
        return at > nameStart && at < bytes.count && bytes[at] == UInt8(ascii: "=")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte == 0x2D
    }

    static func trimmed(_ text: Substring) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(text[first...last])
    }

    static func nonEmpty(_ text: Substring) -> String? {
        let text = trimmed(text)
        return text.isEmpty ? nil : text
    }
}

/// What an ICY server says about its stream in the response headers.
public struct ICYHeaders: Sendable, Equatable {
    /// Audio bytes between metadata blocks; nil when the server interleaves none.
    public var metaint: Int?
    public var name: String?
    public var genre: String?
    /// Kilobits per second, as announced.
    public var bitrate: Int?
    /// The media type, lowercased, without parameters.
    public var contentType: String?
    public var format: StreamFormat?

    /// Names are matched case-insensitively; a repeated header takes its last value, as `HTTPResponse` does.
    /// Throws only for a malformed `icy-metaint`, since the audio cannot be separated from the metadata without it.
    public init(_ headers: [(name: String, value: String)]) throws(ICYError) {
        func value(_ name: String) -> String? {
            headers.last { $0.name.lowercased() == name }.flatMap { ICYText.nonEmpty($0.value[...]) }
        }
        if let text = value("icy-metaint") {
            guard let metaint = Int(text), metaint > 0 else { throw .invalidMetaint(text) }
            self.metaint = metaint
        }
        name = value("icy-name")
        genre = value("icy-genre")
        // Some servers list one rate per quality ("128,128"); the first is the stream's.
        bitrate = value("icy-br").flatMap { Int($0.prefix { $0.isNumber }) }
        contentType = value("content-type").map(StreamFormat.mediaType)
        format = contentType.flatMap(StreamFormat.init(contentType:))
    }
}
