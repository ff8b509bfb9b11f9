import Glibc
import PlayolaNetwork

/// What the follower knows of a live media playlist between reloads: its segments, the next one to play and
/// when to look again. Apart from the network, so that the fuzz target reloads it as a server would.
package struct HLSMediaWindow {
    /// A playlist is not reloaded more often than this, whatever its target duration says (RFC 8216 asks for
    /// one target duration, or half of one when it had not changed: a 1 ms target would be 500 a second).
    package static let minimumReload = 1.0

    package private(set) var media: HLSPlaylist.Media
    /// The sequence number of the next segment to play.
    package private(set) var next: Int
    /// Whether the last reload added segments.
    package private(set) var grew = true
    /// The last bytes parsed: a reload that brings the same bytes is not parsed again.
    private var body: [UInt8]
    package let url: String

    /// What the window holds of the stream's bytes (the stream's budget counts them).
    package var bodyBytes: Int { body.count }

    package init(_ media: HLSPlaylist.Media, body: [UInt8], url: String) {
        self.media = media
        self.body = body
        self.url = url
        // A live playlist is joined three segments from its end (RFC 8216 6.3.3), a finished one at its start.
        next = media.hasEnded ? media.mediaSequence : (media.segments.dropLast(3).last.map { $0.sequence + 1 } ?? media.mediaSequence)
    }

    /// The segments not yet played, in order.
    package var pending: ArraySlice<HLSPlaylist.Segment> {
        media.segments[(media.segments.firstIndex { $0.sequence >= next } ?? media.segments.endIndex)...]
    }

    package mutating func played(_ segment: HLSPlaylist.Segment) { next = max(next, segment.sequence + 1) }

    /// The wait before the next reload.
    package var reloadDelay: Double { max(Self.minimumReload, grew ? media.targetDuration : media.targetDuration / 2) }

    /// A reload's bytes, parsed unless they are those of the last one.
    package mutating func reload(_ bytes: [UInt8]) throws(HLSPlaylistError) {
        guard !Self.same(bytes, body) else {
            grew = false
            return
        }
        body = bytes
        guard case .media(let reloaded) = try HLSPlaylist(bytes: bytes, url: url) else { return }
        grew = (reloaded.segments.last?.sequence ?? Int.min) > (media.segments.last?.sequence ?? Int.min)
        if let first = reloaded.segments.first, first.sequence > next { next = first.sequence }  // fell behind
        media = reloaded
    }

    /// memcmp: `==` on arrays compares element by element, slow over megabytes in a debug build.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
    }
}
