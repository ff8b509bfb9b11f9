import PlayolaEngine
import XCTest

/// Station playlists (.pls, .m3u, plain .m3u8) resolved to stream URLs.
final class StreamPlaylistTests: XCTestCase {
    private let base = "http://radio.example.com:8000/lists/station.pls?listen=1"

    func testPLSIsOrderedByEntryNumber() throws {
        let body = "\u{FEFF}[playlist]\r\nNumberOfEntries=3\r\nFile2=http://b.example.com/stream\r\nTitle2=Backup\r\n"
            + "File10=https://c.example.com/live\r\nfile1 = http://a.example.com:8000/;\r\nLength1=-1\r\nVersion=2\r\n"
        XCTAssertEqual(try StreamPlaylist.entries(body: body, contentType: "audio/x-scpls", url: base), [
            "http://a.example.com:8000/;", "http://b.example.com/stream", "https://c.example.com/live",
        ])
    }

    func testM3UListsItsNonCommentLines() throws {
        let body = "#EXTM3U\n#EXTINF:-1,Playola FM\nhttp://a.example.com/live.mp3\n\n# mirror\nhttps://b.example.com/live.aac\n"
        let expected = ["http://a.example.com/live.mp3", "https://b.example.com/live.aac"]
        XCTAssertEqual(try StreamPlaylist.entries(body: body, contentType: "audio/x-mpegurl", url: base), expected)
        let bare = "http://a.example.com/live.mp3\nhttps://b.example.com/live.aac"
        for type in ["audio/mpegurl", "application/vnd.apple.mpegurl; charset=utf-8", nil] {
            XCTAssertEqual(try StreamPlaylist.entries(body: bare, contentType: type, url: "http://x.example.com/s.m3u8"), expected)
        }
    }

    func testRelativeEntriesResolveAgainstThePlaylist() throws {
        let body = "/abs/path.mp3\nrel/path.mp3\n../up.aac\n./here.mp3?token=a/b\n//cdn.example.com/x.mp3\nhttp://other.example.com/y\n"
        XCTAssertEqual(try StreamPlaylist.entries(body: body, contentType: "audio/mpegurl", url: base), [
            "http://radio.example.com:8000/abs/path.mp3", "http://radio.example.com:8000/lists/rel/path.mp3",
            "http://radio.example.com:8000/up.aac", "http://radio.example.com:8000/lists/here.mp3?token=a/b",
            "http://cdn.example.com/x.mp3", "http://other.example.com/y",
        ])
        XCTAssertEqual(try StreamPlaylist.entries(body: "live", contentType: "audio/x-mpegurl", url: "https://h.example.com"),
                       ["https://h.example.com/live"])
    }

    func testOnlyHTTPEntriesAreKept() throws {
        let body = "[playlist]\nFile1=mms://old.example.com/s\nFile2=http://a.example.com/s\nFile3=C:\\Music\\x.mp3\nFile4=http://a.example.com/s\n"
        XCTAssertEqual(try StreamPlaylist.entries(body: body, contentType: nil, url: base), ["http://a.example.com/s"])
        XCTAssertThrowsError(try StreamPlaylist.entries(body: "rtsp://a.example.com/s\n", contentType: "audio/x-mpegurl", url: base)) {
            XCTAssertEqual($0 as? StreamPlaylistError, .noHTTPEntries(base, found: ["rtsp://a.example.com/s"]))
        }
    }

    func testHLSIsRejected() {
        let body = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsegment0.ts\n"
        let url = "https://hls.example.com/live/index.m3u8"
        XCTAssertThrowsError(try StreamPlaylist.entries(body: body, contentType: "application/vnd.apple.mpegurl", url: url)) {
            XCTAssertEqual($0 as? StreamPlaylistError, .hls(url))
        }
    }

    /// The connection (which stops reading audio at a playlist's Content-Type) and the parser read the same list
    /// of types: each type the connection takes for a playlist, the parser reads as one, without a header or an extension.
    func testEveryPlaylistTypeIsReadAsAPlaylist() throws {
        let bare = "http://a.example.com/live.mp3"
        for type in ["audio/x-scpls", "application/pls+xml"] {
            XCTAssertTrue(StreamPlaylist.isPlaylist(contentType: type))
            XCTAssertEqual(try StreamPlaylist.entries(body: "File1=\(bare)\n", contentType: type, url: "http://x.example.com/live"), [bare], type)
        }
        for type in ["audio/mpegurl", "audio/x-mpegurl", "application/vnd.apple.mpegurl", "Application/X-MpegURL; charset=utf-8"] {
            XCTAssertTrue(StreamPlaylist.isPlaylist(contentType: type))
            XCTAssertEqual(try StreamPlaylist.entries(body: bare, contentType: type, url: "http://x.example.com/live"), [bare], type)
        }
        XCTAssertFalse(StreamPlaylist.isPlaylist(contentType: "audio/mpeg"))
    }

    func testAudioIsNotAPlaylist() throws {
        XCTAssertNil(try StreamPlaylist.entries(body: "ID3\u{4}", contentType: "audio/mpeg", url: "http://x.example.com/live"))
        XCTAssertNil(try StreamPlaylist.entries(body: "OggS", contentType: nil, url: "http://x.example.com/live.ogg"))
        XCTAssertNil(try StreamPlaylist.entries(body: "\u{FFFD}\u{FFFD}", contentType: "audio/aacp", url: "http://x.example.com/a.m3u"),
                     "the server's audio type outranks the extension")
        XCTAssertNil(try StreamPlaylist.entries(body: "anything", contentType: "application/octet-stream", url: "http://x.example.com/;"))
    }

    func testTheBodyHeaderOutranksTypeAndExtension() throws {
        let pls = "[playlist]\nFile1=http://a.example.com/s\n"
        XCTAssertEqual(try StreamPlaylist.entries(body: pls, contentType: "text/plain", url: "http://x.example.com/listen"), ["http://a.example.com/s"])
        XCTAssertEqual(try StreamPlaylist.entries(body: pls, contentType: "audio/x-mpegurl", url: "http://x.example.com/a.m3u"),
                       ["http://a.example.com/s"])
        let m3u = "#EXTM3U\nhttp://a.example.com/s\n"
        XCTAssertEqual(try StreamPlaylist.entries(body: m3u, contentType: "audio/x-scpls", url: "http://x.example.com/a.pls"), ["http://a.example.com/s"])
    }

    func testEmptyPlaylistsAreErrors() {
        let cases: [(body: String, type: String?, url: String)] = [
            ("[playlist]\nNumberOfEntries=0\nVersion=2\n", "audio/x-scpls", "http://x.example.com/a"),
            ("#EXTM3U\n#EXTINF:-1,Nothing\n\n", nil, "http://x.example.com/a.m3u"),
            ("", nil, "http://x.example.com/a.PLS?x=1"),
            ("  \r\n", "application/pls+xml", "http://x.example.com/a"),
        ]
        for (body, type, url) in cases {
            XCTAssertThrowsError(try StreamPlaylist.entries(body: body, contentType: type, url: url)) {
                XCTAssertEqual($0 as? StreamPlaylistError, .empty(url))
            }
        }
    }
}
