import PlayolaDecoding
import PlayolaSupport

/// An internet radio station: where it is and how patiently to listen to it.
public struct StreamStation: Sendable, Equatable {
    /// The name used in logs and status.
    public var name: String
    /// The stream, or a `.pls`/`.m3u`/`.m3u8` playlist of streams tried in order (resolved at every connect).
    public var url: String
    /// Extra request headers, `Name: value`.
    public var headers: [String]
    /// Audio buffered before playback starts, and again after the buffer ran dry.
    public var prebufferSeconds: Double = 2
    /// The most decoded audio held ahead of the output; the compressed bytes behind it are bounded too.
    public var maxBufferSeconds: Double = 6
    /// No byte for this long is a stall: the connection is dropped and made again.
    public var stallSeconds: Double = 8
    /// Reconnects wait `minimumBackoff` seconds, doubling up to `maximumBackoff`, each with ±20 % jitter.
    public var minimumBackoff: Double = 1
    public var maximumBackoff: Double = 60

    public init(name: String, url: String, headers: [String] = []) {
        self.name = name
        self.url = url
        self.headers = headers
    }

    /// The wait before reconnect attempt `attempt` (1, 2, …); `jitter` in 0…1.
    public func backoff(attempt: Int, jitter: Double) -> Double {
        Backoff(first: minimumBackoff, cap: maximumBackoff).delay(attempt: attempt) * (0.8 + 0.4 * jitter)
    }
}

/// What a stream says about itself, for status and the log.
public struct StreamInfo: Sendable, Equatable {
    public var url: String
    public var name: String?
    public var genre: String?
    /// Kilobits per second, as the server announces.
    public var bitrate: Int?
    public var format: StreamFormat?
    /// The ICY `StreamTitle`, and its "Artist - Title" split when it has one.
    public var title: String?
    public var artist: String?
    public var song: String?
    /// Why the last connection ended, while the next one is awaited (nil once it plays).
    public var problem: String?

    package init(url: String) {
        self.url = url
    }
}
