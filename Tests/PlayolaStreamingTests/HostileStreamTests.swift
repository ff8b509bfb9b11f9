import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 26, the streaming half: what a stream's server sends cannot make a title, a playlist or the
/// stream's parsing grow without bound.
final class HostileStreamTests: XCTestCase {
    /// A 4000-byte `StreamTitle` (the most an ICY block holds) is cut to the limit, its halves too.
    func testATitleIsCutToItsLimit() throws {
        let artist = String(repeating: "Ä", count: 1500)
        let song = String(repeating: "s", count: 2500)
        let metadata = ICYMetadata(title: artist + " - " + song)
        XCTAssertEqual(metadata.title.count, ICYMetadata.maxLength)
        XCTAssertTrue(metadata.title.hasSuffix("…"))
        XCTAssertEqual(metadata.artist, String(repeating: "Ä", count: ICYMetadata.maxLength - 1) + "…")
        XCTAssertEqual(metadata.song?.count, ICYMetadata.maxLength)
        XCTAssertEqual(ICYMetadata(title: "A - B").title, "A - B", "a short title is left alone")
        let tags = ICYMetadata(title: song, artist: artist, song: song)
        XCTAssertEqual([tags.title.count, tags.artist?.count, tags.song?.count], [200, 200, 200])
    }

    /// A transport-stream segment whose timed ID3 tags change the title 20,000 times gives the connection one
    /// title, its last (on main, every one of them was announced, and kept until the segment ended).
    func testASegmentFloodedWithTimedTitlesAnnouncesItsLastOnly() throws {
        var segment = TransportStreamBytes.pat() + TransportStreamBytes.pmt([(0x0F, 0x101), (0x15, 0x102)])
        let audio = [UInt8](repeating: 0xAB, count: 64)
        for n in 0..<20_000 {
            segment += TransportStreamBytes.pes(pid: 0x101, streamID: 0xC0, payload: audio)
            segment += TransportStreamBytes.pes(pid: 0x102, streamID: 0xBD, payload: TransportStreamBytes.id3v24(title: "Song \(n)", artist: "Band"))
        }
        let announced = Mutex<[StreamTags]>([])
        var demuxer = SegmentDemuxer(onTags: { tags in announced.withLock { $0.append(tags) } })
        let out = try demuxer.audio(of: segment, initSection: nil, url: "http://radio.test/seg0.ts")
        XCTAssertEqual(out.count, 20_000 * audio.count, "the audio comes out whole")
        XCTAssertEqual(announced.withLock { $0 }, [StreamTags(artist: "Band", title: "Song 19999")])
    }

    /// Of a live playlist of 5000 segments, the last `maxSegments` are kept, numbered by their places; of a
    /// finished one, the first.
    func testAPlaylistKeepsAtMostItsSegmentCap() throws {
        func playlist(ended: Bool) -> String {
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n#EXT-X-MAP:URI=\"init.mp4\"\n"
                + (0..<5000).map { "#EXTINF:2,\nseg\($0).m4s\n" }.joined() + (ended ? "#EXT-X-ENDLIST\n" : "")
        }
        guard case .media(let live) = try HLSPlaylist(body: playlist(ended: false), url: "http://radio.test/a/live.m3u8") else {
            return XCTFail("a media playlist")
        }
        XCTAssertEqual(live.segments.count, HLSPlaylist.maxSegments)
        XCTAssertEqual(live.segments.first?.sequence, 100 + 5000 - HLSPlaylist.maxSegments)
        XCTAssertEqual(live.segments.first?.url, "http://radio.test/a/seg\(5000 - HLSPlaylist.maxSegments).m4s")
        XCTAssertEqual(live.segments.last?.sequence, 5099)
        XCTAssertEqual(live.segments.last?.initSection, "http://radio.test/a/init.mp4", "the map before the kept segments applies")
        guard case .media(let finished) = try HLSPlaylist(body: playlist(ended: true), url: "http://radio.test/a/live.m3u8") else {
            return XCTFail("a media playlist")
        }
        XCTAssertEqual(finished.segments.map(\.sequence), Array(100..<(100 + HLSPlaylist.maxSegments)))
    }

    /// A stream whose parsing takes more than its budget (here a tiny one: a millisecond of CPU a second)
    /// ends with the budget's named error, not the transfer's.
    func testAStreamOverItsCPUBudgetEndsWithANamedError() async throws {
        let mount = try StreamTests.mp3Mount()
        let server = try StreamServer(mounts: [mount], titles: ["A - One", "B - Two"], titleSeconds: 0.001, options: ["--metaint", "16"])
        let url = server.url(mount.path)
        let connection = StreamConnection(url: url, station: StreamStation(name: "budget", url: url),
                                          budget: StreamBudget(name: url, cpuShare: 0.001, window: 1))
        let http = HTTPClient()
        let outcome = await Task { await connection.run(http: http) }.value
        guard case .failed(.refused(let reason)) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(reason, "\(url): parsing what the server sends took more than 0.001 s of CPU in 1 s")
        XCTAssertEqual(connection.failure, reason, "the player sees it and reconnects")
    }
}
