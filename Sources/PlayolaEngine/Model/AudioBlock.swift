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
}
