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

    /// Whether a playlist's text is HLS (segments or variants) rather than a plain list of stream URLs.
    public static func isHLS(_ body: String) -> Bool {
        body.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.hasPrefix("#EXTM3U")
            && (body.contains("#EXT-X-TARGETDURATION") || body.contains("#EXT-X-STREAM-INF"))
    }

    /// Parses `body`, fetched from `url` (relative URIs are resolved against it).
    public init(body: String, url: String) throws(HLSPlaylistError) {
        let lines = body.split(whereSeparator: \.isNewline).map { ICYText.trimmed($0.drop { $0 == "\u{FEFF}" }) }
        guard lines.first == "#EXTM3U" else { throw .notHLS(url) }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-STREAM-INF:") }) {
            self = try Self.master(lines, url: url)
        } else {
            self = .media(try Self.media(lines, url: url))
        }
    }

    private static func master(_ lines: [String], url: String) throws(HLSPlaylistError) -> HLSPlaylist {
        var variants: [Variant] = []
        var renditions: [Rendition] = []
        var pending: [String: String]?
        for line in lines {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                let media = attributes(line.dropFirst("#EXT-X-MEDIA:".count))
                if media["TYPE"] == "AUDIO", let group = media["GROUP-ID"], let uri = media["URI"], let resolved = PlaylistURL.resolve(uri, against: url) {
                    renditions.append(Rendition(group: group, url: resolved, isDefault: media["DEFAULT"] == "YES"))
                }
            } else if !line.isEmpty, !line.hasPrefix("#"), let attributes = pending {
                pending = nil
                guard let resolved = PlaylistURL.resolve(line, against: url) else { continue }
                let bandwidth = attributes["BANDWIDTH"].flatMap { Int($0) }.map { max(0, $0) } ?? 0
                let codecs = attributes["CODECS"].map { $0.split(separator: ",").map { ICYText.trimmed($0) } } ?? []
                variants.append(Variant(url: resolved, bandwidth: bandwidth, codecs: codecs, audioGroup: attributes["AUDIO"]))
            }
        }
        guard !variants.isEmpty else { throw .noVariants(url) }
        return .master(variants: variants, audio: renditions)
    }

    private static func media(_ lines: [String], url: String) throws(HLSPlaylistError) -> Media {
        var target: Double?
        var sequence = 0
        var segments: [Segment] = []
        var duration: Double?
        var discontinuity = false
        var initSection: String?
        var ended = false
        for line in lines {
            if let value = line.value(of: "#EXT-X-TARGETDURATION:") {
                guard let seconds = Double(value), seconds > 0, seconds <= 3600 else { throw .invalid(url, "EXT-X-TARGETDURATION \(value)") }
                target = seconds
            } else if let value = line.value(of: "#EXT-X-MEDIA-SEQUENCE:") {
                guard let number = Int(value), number >= 0, number < Int.max / 2 else { throw .invalid(url, "EXT-X-MEDIA-SEQUENCE \(value)") }
                sequence = number
            } else if let value = line.value(of: "#EXTINF:") {
                let seconds = value.prefix { $0 != "," }
                guard let parsed = Double(seconds), parsed >= 0, parsed <= 3600 else { throw .invalid(url, "EXTINF \(value)") }
                duration = parsed
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = true
            } else if line == "#EXT-X-ENDLIST" {
                ended = true
            } else if let value = line.value(of: "#EXT-X-MAP:") {
                guard let uri = attributes(value[...])["URI"], let resolved = PlaylistURL.resolve(uri, against: url) else {
                    throw .invalid(url, "EXT-X-MAP without a URI")
                }
                initSection = resolved
            } else if let value = line.value(of: "#EXT-X-KEY:") {
                let method = attributes(value[...])["METHOD"] ?? "NONE"
                if method != "NONE" { throw .encrypted(url, method: method) }
            } else if line.hasPrefix("#EXT-X-BYTERANGE:") {
                throw .unsupported(url, "EXT-X-BYTERANGE segments")
            } else if !line.isEmpty, !line.hasPrefix("#") {
                guard let seconds = duration else { throw .invalid(url, "a segment without EXTINF: \(line)") }
                if let resolved = PlaylistURL.resolve(line, against: url) {
                    segments.append(Segment(url: resolved, sequence: sequence + segments.count, duration: seconds,
                                            isDiscontinuity: discontinuity, initSection: initSection))
                }
                duration = nil
                discontinuity = false
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

private extension String {
    func value(of tag: String) -> String? { hasPrefix(tag) ? String(dropFirst(tag.count)) : nil }
}
