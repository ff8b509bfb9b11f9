/// What a stream says is playing, from inside its audio (an Ogg link's Vorbis comments) rather than from
/// ICY metadata beside it.
public struct StreamTags: Sendable, Equatable {
    public var artist: String?
    public var title: String?

    public init(artist: String?, title: String?) {
        self.artist = artist
        self.title = title
    }

    /// As an ICY `StreamTitle` would say it: "Artist - Title", or whichever is there; nil when neither is.
    public var text: String? {
        switch (artist, title) {
        case let (artist?, title?): "\(artist) - \(title)"
        case let (artist, title): title ?? artist
        }
    }
}
