import FoundationEssentials
import PlayolaModel
import PlayolaSupport

public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable { case get = "GET", post = "POST", head = "HEAD" }

    public var url: String
    public var method: Method
    public var headers: [String]
    public var body: Data?
    /// Whole-transfer limit in seconds (0: none; downloads rely on the low-speed limit instead).
    public var timeout: Double
    /// A transfer slower than 1 byte/s for this long is a stall.
    public var stallTimeout: Double
    /// Ask for the body from this byte on (a Range request, to resume a download).
    public var resumeFrom: Int64

    public init(
        url: String, method: Method = .get, headers: [String] = [], body: Data? = nil, timeout: Double = 30,
        stallTimeout: Double = 15, resumeFrom: Int64 = 0
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.stallTimeout = stallTimeout
        self.resumeFrom = resumeFrom
    }

    /// An https URL, whose redirects must stay https.
    var isHTTPS: Bool { url.lowercased().hasPrefix("https:") }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields of the final response (after redirects), names lowercased.
    public var headers: [(name: String, value: String)]
    /// The body, when the request was not a download to a file.
    public var body: Data
    /// Bytes of body received (for downloads: written to the file).
    public var bodyBytes: Int64

    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.last { $0.name == lowered }?.value
    }

    /// The server's clock, from the `Date` header.
    public var date: Date? { header("date").flatMap(HTTPDate.parse) }
}

/// What went wrong with a transfer, in the terms a caller decides on.
public enum HTTPError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case dns(String)
    case connect(String)
    case tls(String)
    case timeout(String)
    /// The connection ended before the whole body arrived.
    case truncated(String)
    case status(Int, url: String)
    case cancelled
    /// Our side refused to go on (e.g. no room in the cache for the body).
    case refused(String)
    /// The URL, or a redirect (named), is not http or https.
    case unsupportedProtocol(String)
    /// An https request was redirected to a plain http URL, which was not followed.
    case insecureRedirect(from: String, to: String)
    /// The body went on past what the headers announced (`limit` bytes): stopped before writing more.
    case bodyTooLong(url: String, limit: Int64)
    /// A request header (named) holds a control character; the request was not sent.
    case invalidHeader(String)
    case other(String)

    /// Worth another try soon: the network or the server had a moment.
    public var isTransient: Bool {
        switch self {
        case .dns, .connect, .tls, .timeout, .truncated: true
        case .status(let code, _): code >= 500 || code == 429 || code == 408
        case .invalidURL, .cancelled, .refused, .other, .unsupportedProtocol, .insecureRedirect, .bodyTooLong, .invalidHeader: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .dns(let detail): "name lookup failed: \(detail)"
        case .connect(let detail): "cannot connect: \(detail)"
        case .tls(let detail): "TLS failure: \(detail)"
        case .timeout(let detail): "timed out: \(detail)"
        case .truncated(let detail): "connection ended early: \(detail)"
        case .status(let code, let url): "HTTP \(code) from \(url)"
        case .cancelled: "cancelled"
        case .refused(let detail): detail
        case .other(let detail): detail
        case .unsupportedProtocol(let url): "refused: \(url) is not an http or https URL"
        case .insecureRedirect(let from, let to): "refused: \(from) redirected to \(to), which is not https; a redirect from https is followed only to https"
        case .bodyTooLong(let url, let limit): "\(url): the body is longer than the \(limit) bytes announced; stopped"
        case .invalidHeader(let name): "refused: the request header \(name) holds a control character"
        }
    }
}

/// What a download's header check decides before the first body byte.
public enum HeaderVerdict: Sendable, Equatable {
    /// Go on; at most `bodyLimit` bytes of body are written (nil: no cap).
    case accept(bodyLimit: Int64?)
    case refuse(String)
}

/// A request header line as a C string for libcurl.
enum HTTPHeaderField {
    /// No control character but tab anywhere in the line (so no CR or LF can start another field or request).
    static func isSafe(_ line: String) -> Bool { ControlCharacters.first(in: line) == nil }

    /// The field's name for an error message: up to the colon, cut at the first byte that is not printable.
    static func name(of line: String) -> String {
        String(line.prefix { $0 != ":" && ($0.asciiValue.map { $0 > 0x20 && $0 < 0x7F } ?? false) }.prefix(64))
    }
}

/// RFC 7231 dates (`Sun, 06 Nov 1994 08:49:37 GMT`), for the server's `Date` header.
enum HTTPDate {
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, let day = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])),
              let year = Int(parts[3]) else { return nil }
        let monthText = month + 1 < 10 ? "0\(month + 1)" : "\(month + 1)"
        let dayText = day < 10 ? "0\(day)" : "\(day)"
        return PlayolaDate.parse("\(year)-\(monthText)-\(dayText)T\(parts[4])Z")
    }
}
