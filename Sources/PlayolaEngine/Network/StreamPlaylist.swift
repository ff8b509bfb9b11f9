import PlayolaDecoding

public enum StreamPlaylistError: Error, Equatable, CustomStringConvertible {
    /// An HLS media or master playlist: segments, not a stream URL, and not something we play.
    case hls(String)
    /// The playlist lists nothing.
    case empty(String)
    /// Entries exist but none is an http(s) URL we can fetch (rtsp, mms, local files...).
    case noHTTPEntries(String, found: [String])

    public var description: String {
        switch self {
        case .hls(let url): "\(url) is an HLS playlist, which is not supported"
        case .empty(let url): "the playlist at \(url) lists no streams"
        case .noHTTPEntries(let url, let found): "the playlist at \(url) lists no http(s) streams: \(found.joined(separator: ", "))"
        }
    }
}

/// Turns the `.pls` / `.m3u` / `.m3u8` files stations publish into the stream URLs they point at.
public enum StreamPlaylist {
    private enum Kind { case pls, m3u }

    /// The media types servers give playlists, and what each is.
    private static let mediaTypes: [String: Kind] = [
        "audio/x-scpls": .pls, "application/pls+xml": .pls,
        "audio/mpegurl": .m3u, "audio/x-mpegurl": .m3u, "application/vnd.apple.mpegurl": .m3u, "application/x-mpegurl": .m3u,
    ]

    /// Whether a response of this Content-Type is a playlist rather than the stream itself.
    public static func isPlaylist(contentType: String) -> Bool { mediaTypes[StreamFormat.mediaType(contentType)] != nil }

    /// The stream URLs in order, relative ones resolved against `url`; nil when `body` is not a playlist.
    public static func entries(body: String, contentType: String?, url: String) throws(StreamPlaylistError) -> [String]? {
        guard let kind = kind(body: body, contentType: contentType, url: url) else { return nil }
        let lines = body.split(whereSeparator: \.isNewline).map { ICYText.trimmed($0.drop { $0 == "\u{FEFF}" }) }
        let listed: [String]
        switch kind {
        case .pls: listed = plsEntries(lines)
        case .m3u:
            if lines.contains(where: { $0.uppercased().hasPrefix("#EXT-X-") }) { throw .hls(url) }
            listed = lines.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        guard !listed.isEmpty else { throw .empty(url) }
        var streams: [String] = []
        for entry in listed {
            if let stream = PlaylistURL.resolve(entry, against: url), !streams.contains(stream) { streams.append(stream) }
        }
        guard !streams.isEmpty else { throw .noHTTPEntries(url, found: listed) }
        return streams
    }

    /// The body's own header is the surest sign (no audio starts with one); then what the server calls it;
    /// the URL's extension only when the server gives a type that says nothing either way.
    private static func kind(body: String, contentType: String?, url: String) -> Kind? {
        let start = body.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.prefix(10).lowercased()
        if start.hasPrefix("[playlist]") { return .pls }
        if start.hasPrefix("#extm3u") { return .m3u }
        if let contentType {
            if let kind = mediaTypes[StreamFormat.mediaType(contentType)] { return kind }
            if StreamFormat(contentType: contentType) != nil { return nil }
        }
        let path = PlaylistURL.path(of: url).lowercased()
        if path.hasSuffix(".pls") { return .pls }
        if path.hasSuffix(".m3u") || path.hasSuffix(".m3u8") { return .m3u }
        return nil
    }

    /// `FileN=` lines in N order: the numbers, not the line order, rank the mirrors. `NumberOfEntries` is
    /// not trusted, since servers often get it wrong.
    private static func plsEntries(_ lines: [String]) -> [String] {
        var numbered: [(number: Int, url: String)] = []
        for line in lines {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = ICYText.trimmed(line[..<equals]).lowercased()
            guard key.hasPrefix("file"), let number = Int(key.dropFirst(4)) else { continue }
            let value = ICYText.trimmed(line[line.index(after: equals)...])
            if !value.isEmpty { numbered.append((number, value)) }
        }
        return numbered.enumerated().sorted { ($0.element.number, $0.offset) < ($1.element.number, $1.offset) }.map(\.element.url)
    }
}

/// Just enough URL handling to resolve playlist entries, without Foundation's URL.
enum PlaylistURL {
    /// `entry` as an absolute http(s) URL, or nil when it is another scheme or cannot be resolved.
    static func resolve(_ entry: String, against base: String) -> String? {
        if let scheme = scheme(of: entry) { return isHTTP(scheme) ? entry : nil }
        guard let baseScheme = scheme(of: base), isHTTP(baseScheme) else { return nil }
        if entry.hasPrefix("//") { return baseScheme + ":" + entry }
        let afterScheme = base.dropFirst(baseScheme.count + 1)
        guard afterScheme.hasPrefix("//") else { return nil }
        let authority = afterScheme.dropFirst(2).prefix { !"/?#".contains($0) }
        let origin = String(base[..<authority.endIndex])
        if entry.hasPrefix("/") { return origin + normalized(entry) }
        let basePath = path(of: base)
        let directory = basePath.lastIndex(of: "/").map { String(basePath[...$0]) } ?? "/"
        return origin + normalized(directory + entry)
    }

    /// The path of an absolute URL, without query or fragment ("" when there is none).
    static func path(of url: String) -> String {
        let afterScheme = scheme(of: url).map { url.dropFirst($0.count + 1) } ?? url[...]
        let hierarchy = afterScheme.hasPrefix("//") ? afterScheme.dropFirst(2).drop { !"/?#".contains($0) } : afterScheme
        return String(hierarchy.prefix { $0 != "?" && $0 != "#" })
    }

    private static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isASCII, first.isLetter else { return nil }
        let scheme = url[..<colon]
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return String(scheme)
    }

    private static func isHTTP(_ scheme: String) -> Bool { ["http", "https"].contains(scheme.lowercased()) }

    /// Removes `.` and `..` segments from the path, leaving any query or fragment alone.
    private static func normalized(_ reference: String) -> String {
        let pathEnd = reference.firstIndex { $0 == "?" || $0 == "#" } ?? reference.endIndex
        var segments: [Substring] = []
        let parts = reference[..<pathEnd].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            switch part {
            case ".": if isLast { segments.append("") }
            case "..":
                if !segments.isEmpty { segments.removeLast() }
                if isLast { segments.append("") }
            default: segments.append(part)
            }
        }
        return "/" + segments.joined(separator: "/") + reference[pathEnd...]
    }
}
