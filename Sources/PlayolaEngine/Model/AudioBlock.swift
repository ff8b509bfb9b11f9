/// One audio file of the Playola catalogue: a song, a jingle, a voice track.
///
/// Only what playback and status need is required; the server sends more (s3 keys, overlap roles, …),
/// which is ignored, so a change to those fields never silences a station.
public struct AudioBlock: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var artist: String
    public var type: String?
    public var durationMS: Int
    public var endOfMessageMS: Int
    public var downloadURL: String?
    public var album: String?

    enum CodingKeys: String, CodingKey {
        case id, title, artist, type, durationMS, endOfMessageMS, album
        case downloadURL = "downloadUrl"
    }

    /// The longest audio block a schedule may name: a day. A schedule that says more (or less than 0) has
    /// the spin refused when it is decoded; `frames(atRate:)` saturates for blocks made in code, so no
    /// arithmetic in milliseconds × rate can leave Int64.
    public static let maximumMS = 86_400_000

    /// The block's length in frames at `rate`, its duration clamped to 0...maximumMS.
    public func frames(atRate rate: Int) -> Int64 {
        Int64(min(max(durationMS, 0), Self.maximumMS)) * Int64(rate) / 1000
    }

    public init(
        id: String, title: String, artist: String, type: String? = nil, durationMS: Int,
        endOfMessageMS: Int, downloadURL: String?, album: String? = nil
    ) {
        self.id = id
        self.title = title
        self.artist = artist
        self.type = type
        self.durationMS = durationMS
        self.endOfMessageMS = endOfMessageMS
        self.downloadURL = downloadURL
        self.album = album
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            title: try container.decode(String.self, forKey: .title),
            artist: try container.decode(String.self, forKey: .artist),
            type: try container.decodeIfPresent(String.self, forKey: .type),
            durationMS: try container.milliseconds(.durationMS, in: 0...Self.maximumMS),
            endOfMessageMS: try container.milliseconds(.endOfMessageMS, in: 0...Self.maximumMS),
            downloadURL: try container.decodeIfPresent(String.self, forKey: .downloadURL),
            album: try container.decodeIfPresent(String.self, forKey: .album))
    }
}
