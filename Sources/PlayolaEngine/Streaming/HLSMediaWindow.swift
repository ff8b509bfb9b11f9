import PlayolaNetwork

/// What the follower knows of a live media playlist between reloads: its segments, the next one to play and
/// when to look again. Apart from the network, so that the fuzz target reloads it as a server would.
///
/// A class, used by one task at a time: as a struct in the follower's async frame, Swift 6.3.1's debug build
/// copied it from a frame gone bad at the first reload (a null retain, StreamTests' HLS tests).
package final class HLSMediaWindow {
    /// A playlist is not reloaded more often than this, whatever its target duration says (RFC 8216 asks for
    /// one target duration, or half of one when it had not changed: a 1 ms target would be 500 a second).
    package static let minimumReload = 1.0

    package private(set) var media: HLSPlaylist.Media
    /// The sequence number of the next segment to play.
    package private(set) var next: Int
    /// Whether the last reload added segments.
    package private(set) var grew = true
    /// The digest of the last bytes parsed: a reload that brings the same bytes is not parsed again. A digest,
    /// not the bytes, so that a playlist of megabytes is not held twice while the next is fetched.
    private var digest: Int
    package let url: String

    package init(_ media: HLSPlaylist.Media, body: [UInt8], url: String) {
        self.media = media
        digest = Self.digest(body)
        self.url = url
        // A live playlist is joined three segments from its end (RFC 8216 6.3.3), a finished one at its start.
        next = media.hasEnded ? media.mediaSequence : (media.segments.dropLast(3).last.map { $0.sequence + 1 } ?? media.mediaSequence)
    }

    /// The segments not yet played, in order.
    package var pending: ArraySlice<HLSPlaylist.Segment> {
        media.segments[(media.segments.firstIndex { $0.sequence >= next } ?? media.segments.endIndex)...]
    }

    package func played(_ segment: HLSPlaylist.Segment) { next = max(next, segment.sequence + 1) }

    /// The wait before the next reload.
    package var reloadDelay: Double { max(Self.minimumReload, grew ? media.targetDuration : media.targetDuration / 2) }

    /// A reload's bytes, parsed unless they are those of the last one.
    package func reload(_ bytes: [UInt8]) throws(HLSPlaylistError) {
        let digest = Self.digest(bytes)
        guard digest != self.digest else {
            grew = false
            return
        }
        self.digest = digest
        guard case .media(let reloaded) = try HLSPlaylist(bytes: bytes, url: url) else { return }
        grew = (reloaded.segments.last?.sequence ?? Int.min) > (media.segments.last?.sequence ?? Int.min)
        if let first = reloaded.segments.first, first.sequence > next { next = first.sequence }  // fell behind
        media = reloaded
    }

    /// SipHash over the bytes at once (the standard library's, fast in a debug build too). Two playlists that
    /// collide cost one reload passed over; the next is read.
    private static func digest(_ bytes: [UInt8]) -> Int {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(bytes.count)
        return hasher.finalize()
    }
}
