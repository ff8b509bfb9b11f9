
/// The tags MPD names (`src/tag/Names.cxx`), which `tagtypes enable|disable|reset` accept; a song here has
/// three of them. Which a client is sent is its own choice (its mask, `MPDClientState.tags`), as in MPD.
enum MPDTags {
    /// The tags a song here has, in MPD's order.
    static let given = ["Artist", "Title", "Name"]
    static let known = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "TitleSort", "Track", "Name",
        "Genre", "Mood", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer", "Conductor", "Work", "Movement",
        "MovementNumber", "ShowMovement", "Ensemble", "Location", "Grouping", "Comment", "Disc", "DiscSubtitle", "Label",
        "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID",
        "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID", "MUSICBRAINZ_RELEASEGROUPID",
    ]

    /// `tagtypes` and its sub-commands on `mask` (lower-case names); returns what to print.
    static func command(_ arguments: [String], mask: inout Set<String>) throws(MPDError) -> String {
        guard let sub = arguments.first else {
            return given.filter { mask.contains($0.lowercased()) }.map { "tagtype: \($0)\n" }.joined()
        }
        let names = Array(arguments.dropFirst())
        switch sub {
        case "all", "clear":
            guard names.isEmpty else { throw MPDError(.argument, "tagtypes", "Too many arguments") }
            mask = sub == "all" ? Set(known.map { $0.lowercased() }) : []
        case "enable": mask.formUnion(try parse(names))
        case "disable": mask.subtract(try parse(names))
        case "reset": mask = try parse(names)
        case "available": return given.map { "tagtype: \($0)\n" }.joined()
        default: throw MPDError(.argument, "tagtypes", "Unknown sub command")
        }
        return ""
    }

    private static func parse(_ names: [String]) throws(MPDError) -> Set<String> {
        guard !names.isEmpty else { throw MPDError(.argument, "tagtypes", "Not enough arguments") }
        let lowered = Set(known.map { $0.lowercased() })
        var result: Set<String> = []
        for name in names {
            guard lowered.contains(name.lowercased()) else { throw MPDError(.argument, "tagtypes", "Unknown tag type") }
            result.insert(name.lowercased())
        }
        return result
    }
}

/// What a connection has said of itself, which its commands read and may change.
struct MPDClientState: Sendable, Equatable {
    /// The password was given (or none is asked).
    var authorized: Bool
    /// The tags it is sent, lower-case (`tagtypes`): all at first.
    var tags = Set(MPDTags.known.map { $0.lowercased() })
}
