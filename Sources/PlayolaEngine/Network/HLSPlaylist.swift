/// An HLS playlist (RFC 8216) as a radio needs it: a master playlist's variants and audio renditions, or a
/// media playlist's segments with their sequence numbers, discontinuities and init sections.
public enum HLSPlaylist: Equatable, Sendable {
    case master(variants: [Variant], audio: [Rendition])
    case media(Media)

    public struct Variant: Equatable, Sendable {
        public var url: String
        public var bandwidth: Int
        public var codecs: [String]
        /// The `GROUP-ID` of the audio renditions it plays with, if any.
        public var audioGroup: String?

        /// Every codec listed is audio (mp4a, mp3, ac-3, opus…); a variant that lists none might be either.
        var isAudioOnly: Bool {
            !codecs.isEmpty && codecs.allSatisfy { codec in ["mp4a", "mp3", ".mp3", "ac-3", "ec-3", "opus", "flac"].contains { codec.lowercased().hasPrefix($0) } }
        }
    }

    public struct Rendition: Equatable, Sendable {
        public var group: String
        public var url: String
        public var isDefault: Bool
    }

    public struct Media: Equatable, Sendable {
        public var targetDuration: Double
        public var mediaSequence: Int
        public var segments: [Segment]
        /// `EXT-X-ENDLIST`: no segment will be added.
        public var hasEnded: Bool
    }

    public struct Segment: Equatable, Sendable {
        public var url: String
        public var sequence: Int
        public var duration: Double
        /// An `EXT-X-DISCONTINUITY` stands before it: the encoding may have changed.
        public var isDiscontinuity: Bool
        /// The `EXT-X-MAP` init section it needs (fragmented MP4).
        public var initSection: String?
    }

    /// The most segments of a media playlist kept (the last ones of a live playlist, the first of a finished
    /// one), and the most variants and renditions of a master playlist: a live join needs three, a radio a
    /// few minutes' worth, and a playlist of megabytes must not become as many strings at every reload.
    public static let maxSegments = 1024
    public static let maxVariants = 256

    /// Whether a playlist's bytes are HLS (segments or variants) rather than a plain list of stream URLs.
    public static func isHLS(_ bytes: [UInt8]) -> Bool {
        let lines = bytes.prefix(64).drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        return lines.starts(with: Array("#EXTM3U".utf8))
            && (PlaylistLines.contains(bytes, "#EXT-X-TARGETDURATION") || PlaylistLines.contains(bytes, "#EXT-X-STREAM-INF"))
    }

    public static func isHLS(_ body: String) -> Bool { isHLS(Array(body.utf8)) }

    /// Parses `body`, fetched from `url` (relative URIs are resolved against it).
    public init(body: String, url: String) throws(HLSPlaylistError) {
        try self.init(bytes: Array(body.utf8), url: url)
    }

    public init(bytes: [UInt8], url: String) throws(HLSPlaylistError) {
        let lines = PlaylistLines(bytes)
        guard let first = lines.ranges.first, lines.isExactly(first, "#EXTM3U") else { throw .notHLS(url) }
        if lines.ranges.contains(where: { lines.hasPrefix($0, "#EXT-X-STREAM-INF:") }) {
            self = try Self.master(lines, url: url)
        } else {
            self = .media(try Self.media(lines, url: url))
        }
    }

    private static func master(_ lines: PlaylistLines, url: String) throws(HLSPlaylistError) -> HLSPlaylist {
        var variants: [Variant] = []
        var renditions: [Rendition] = []
        var pending: [String: String]?
        for line in lines.ranges where variants.count < maxVariants {
            if let value = lines.value(line, after: "#EXT-X-STREAM-INF:") {
                pending = attributes(value[...])
            } else if let value = lines.value(line, after: "#EXT-X-MEDIA:") {
                let media = attributes(value[...])
                if renditions.count < maxVariants, media["TYPE"] == "AUDIO", let group = media["GROUP-ID"], let uri = media["URI"],
                   let resolved = PlaylistURL.resolve(uri, against: url) {
                    renditions.append(Rendition(group: group, url: resolved, isDefault: media["DEFAULT"] == "YES"))
                }
            } else if lines.isURI(line), let attributes = pending {
                pending = nil
                guard let resolved = PlaylistURL.resolve(lines.text(line), against: url) else { continue }
                let bandwidth = attributes["BANDWIDTH"].flatMap { Int($0) }.map { max(0, $0) } ?? 0
                let codecs = attributes["CODECS"].map { $0.split(separator: ",").map { ICYText.trimmed($0) } } ?? []
                variants.append(Variant(url: resolved, bandwidth: bandwidth, codecs: codecs, audioGroup: attributes["AUDIO"]))
            }
        }
        guard !variants.isEmpty else { throw .noVariants(url) }
        return .master(variants: variants, audio: renditions)
    }

    /// Of the segments, only the `maxSegments` kept are read whole; the others are counted (their sequence
    /// numbers follow from their places) and their tags only looked at.
    private static func media(_ lines: PlaylistLines, url: String) throws(HLSPlaylistError) -> Media {
        let ended = lines.ranges.contains { lines.isExactly($0, "#EXT-X-ENDLIST") }
        let total = lines.ranges.count { lines.isURI($0) }
        let kept = ended ? 0..<min(total, maxSegments) : max(0, total - maxSegments)..<total
        var target: Double?
        var sequence = 0
        var segments: [Segment] = []
        segments.reserveCapacity(kept.count)
        var index = 0
        var duration: Double?
        var discontinuity = false
        // The last EXT-X-MAP and EXT-X-KEY seen, read when a kept segment needs them.
        var map: (line: Range<Int>, resolved: String?)?
        var key: Range<Int>?
        for line in lines.ranges {
            if let value = lines.value(line, after: "#EXT-X-TARGETDURATION:") {
                guard let seconds = Double(value), seconds > 0, seconds <= 3600 else { throw .invalid(url, "EXT-X-TARGETDURATION \(value)") }
                target = seconds
            } else if let value = lines.value(line, after: "#EXT-X-MEDIA-SEQUENCE:") {
                guard let number = Int(value), number >= 0, number < Int.max / 2 else { throw .invalid(url, "EXT-X-MEDIA-SEQUENCE \(value)") }
                // Later, it would number the segments after it below those before (RFC 8216 4.3.3.2: before the first).
                guard index == 0 else { throw .invalid(url, "EXT-X-MEDIA-SEQUENCE after a segment") }
                sequence = number
            } else if lines.hasPrefix(line, "#EXTINF:") {
                guard kept.contains(index), let value = lines.value(line, after: "#EXTINF:") else {
                    duration = 0
                    continue
                }
                let seconds = value.prefix { $0 != "," }
                guard let parsed = Double(seconds), parsed >= 0, parsed <= 3600 else { throw .invalid(url, "EXTINF \(value)") }
                duration = parsed
            } else if lines.isExactly(line, "#EXT-X-DISCONTINUITY") {
                discontinuity = true
            } else if lines.hasPrefix(line, "#EXT-X-MAP:") {
                map = (line, nil)
            } else if lines.hasPrefix(line, "#EXT-X-KEY:") {
                key = line
            } else if lines.hasPrefix(line, "#EXT-X-BYTERANGE:") {
                throw .unsupported(url, "EXT-X-BYTERANGE segments")
            } else if lines.isURI(line) {
                guard let seconds = duration else { throw .invalid(url, "a segment without EXTINF: \(lines.text(line))") }
                defer {
                    index += 1
                    duration = nil
                    discontinuity = false
                }
                guard kept.contains(index) else { continue }
                if let line = key {
                    let method = attributes(lines.value(line, after: "#EXT-X-KEY:")![...])["METHOD"] ?? "NONE"
                    if method != "NONE" { throw .encrypted(url, method: method) }
                    key = nil
                }
                if let found = map, found.resolved == nil {
                    guard let uri = attributes(lines.value(found.line, after: "#EXT-X-MAP:")![...])["URI"],
                          let resolved = PlaylistURL.resolve(uri, against: url) else { throw .invalid(url, "EXT-X-MAP without a URI") }
                    map = (found.line, resolved)
                }
                if let resolved = PlaylistURL.resolve(lines.text(line), against: url) {
                    segments.append(Segment(url: resolved, sequence: sequence + index, duration: seconds,
                                            isDiscontinuity: discontinuity, initSection: map?.resolved))
                }
            }
        }
        guard let target else { throw .invalid(url, "no EXT-X-TARGETDURATION") }
        return Media(targetDuration: target, mediaSequence: sequence, segments: segments, hasEnded: ended)
    }

    /// `KEY=value,KEY="quoted, value"` attribute lists.
    private static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = ICYText.trimmed(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<close]
                rest = close < body.endIndex ? body[body.index(after: close)...] : body[body.endIndex...]
                rest = rest.drop { $0 != "," }
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = rest[comma...]
            }
            rest = rest.drop { $0 == "," }
            result[key] = String(value)
        }
        return result
    }

    /// The variant a radio plays: the richest audio-only one, else the leanest (its video is fetched and
    /// passed over, so the fewer bits the better); the URL of its default audio rendition when it has one.
    public static func chooseAudio(variants: [Variant], audio: [Rendition]) -> String? {
        let audioOnly = variants.filter(\.isAudioOnly)
        guard let variant = audioOnly.max(by: { $0.bandwidth < $1.bandwidth }) ?? variants.min(by: { $0.bandwidth < $1.bandwidth }) else {
            return nil
        }
        if let group = variant.audioGroup {
            let renditions = audio.filter { $0.group == group }
            if let rendition = renditions.first(where: \.isDefault) ?? renditions.first { return rendition.url }
        }
        return variant.url
    }
}

public enum HLSPlaylistError: Error, Equatable, CustomStringConvertible {
    case notHLS(String)
    case noVariants(String)
    case invalid(String, String)
    case encrypted(String, method: String)
    case unsupported(String, String)

    public var description: String {
        switch self {
        case .notHLS(let url): "\(url): not an HLS playlist (no #EXTM3U)"
        case .noVariants(let url): "\(url): a master playlist with no variant"
        case .invalid(let url, let what): "\(url): invalid HLS playlist: \(what)"
        case .encrypted(let url, let method): "\(url): encrypted HLS (\(method)) is not supported"
        case .unsupported(let url, let what): "\(url): \(what) are not supported"
        }
    }
}

