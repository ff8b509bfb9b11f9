import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// HLS playlists and segments as bytes: the parts a live station's server sends, with their edge cases.
final class HLSPlaylistTests: XCTestCase {
    let base = "http://radio.test/live/master.m3u8"

    func testTheAudioOnlyVariantIsChosenAndItsDefaultRenditionFollowed() throws {
        let master = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",DEFAULT=NO,URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Main, stereo",DEFAULT=YES,URI="audio/main.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac"
        video/720.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5"
        low.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=196000,CODECS="mp4a.40.2",AUDIO="aac"
        high.m3u8
        """
        guard case .master(let variants, let audio) = try HLSPlaylist(body: master, url: base) else { return XCTFail("a master playlist") }
        XCTAssertEqual(variants.map(\.bandwidth), [2_500_000, 64000, 196_000])
        XCTAssertEqual(HLSPlaylist.chooseAudio(variants: variants, audio: audio), "http://radio.test/live/audio/main.m3u8",
                       "the richest audio-only variant, through its default rendition (the quoted comma kept)")
        XCTAssertEqual(HLSPlaylist.chooseAudio(variants: Array(variants[..<2]), audio: []), "http://radio.test/live/low.m3u8")
        var leaner = variants[0]
        leaner.url = "http://radio.test/v2"
        leaner.bandwidth = 900_000
        leaner.audioGroup = nil
        XCTAssertEqual(HLSPlaylist.chooseAudio(variants: [variants[0], leaner], audio: audio), "http://radio.test/v2", "no audio-only one: the leanest")
    }

    func testAMediaPlaylistGivesItsSegmentsInSequenceWithDiscontinuitiesAndInitSections() throws {
        let media = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:1200
        #EXT-X-MAP:URI="init-a.mp4"
        #EXTINF:6.0,
        a/1200.m4s
        #EXT-X-DISCONTINUITY
        #EXT-X-MAP:URI="/init-b.mp4"
        #EXTINF:5.5,Title ignored
        https://cdn.test/1201.m4s?token=x
        #EXT-X-ENDLIST
        """
        guard case .media(let playlist) = try HLSPlaylist(body: media, url: base) else { return XCTFail("a media playlist") }
        XCTAssertEqual(playlist.targetDuration, 6)
        XCTAssertTrue(playlist.hasEnded)
        XCTAssertEqual(playlist.segments.map(\.url), ["http://radio.test/live/a/1200.m4s", "https://cdn.test/1201.m4s?token=x"])
        XCTAssertEqual(playlist.segments.map(\.sequence), [1200, 1201])
        XCTAssertEqual(playlist.segments.map(\.duration), [6, 5.5])
        XCTAssertEqual(playlist.segments.map(\.isDiscontinuity), [false, true])
        XCTAssertEqual(playlist.segments.map(\.initSection), ["http://radio.test/live/init-a.mp4", "http://radio.test/init-b.mp4"])
        XCTAssertTrue(HLSPlaylist.isHLS(media))
        XCTAssertFalse(HLSPlaylist.isHLS("#EXTM3U\n#EXTINF:-1,Radio\nhttp://radio.test/stream.mp3\n"), "an extended M3U of streams is not HLS")
    }

    func testPlaylistsThatCannotBePlayedAreNamed() {
        let cases: [(String, String)] = [
            ("#EXTM3U\n#EXTINF:2,\na.ts\n", "\(base): invalid HLS playlist: no EXT-X-TARGETDURATION"),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:-4\n", "\(base): invalid HLS playlist: EXT-X-TARGETDURATION -4"),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:2,\na.ts\n", "\(base): encrypted HLS (AES-128) is not supported"),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXT-X-BYTERANGE:100@0\na.ts\n", "\(base): EXT-X-BYTERANGE segments are not supported"),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts\n", "\(base): invalid HLS playlist: a segment without EXTINF: a.ts"),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:99999999999999999999\n", "\(base): invalid HLS playlist: EXT-X-MEDIA-SEQUENCE 99999999999999999999"),
            ("<html>", "\(base): not an HLS playlist (no #EXTM3U)"),
            ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXT-X-MEDIA-SEQUENCE:0\n", "\(base): invalid HLS playlist: EXT-X-MEDIA-SEQUENCE after a segment"),
        ]
        for (body, message) in cases {
            XCTAssertThrowsError(try HLSPlaylist(body: body, url: base)) { XCTAssertEqual("\($0)", message) }
        }
    }

    /// ID3 timed metadata in a transport stream (stream type 0x15) becomes the title; the audio PID's PES
    /// payloads come out whole, headers removed.
    func testATransportStreamGivesItsAudioAndItsID3Titles() {
        let audio = [UInt8](repeating: 0xAB, count: 300)
        let id3 = TransportStreamBytes.id3v24(title: "Song Ü", artist: "Band")
        var stream = TransportStreamBytes.pat() + TransportStreamBytes.pmt([(0x0F, 0x101), (0x15, 0x102)])
        stream += TransportStreamBytes.pes(pid: 0x101, streamID: 0xC0, payload: audio) + TransportStreamBytes.pes(pid: 0x102, streamID: 0xBD, payload: id3)
        var demuxer = TransportStreamDemuxer()
        var out: [UInt8] = []
        var titles: [StreamTags] = []
        demuxer.demux(stream, audio: { out += $0 }, tags: { titles.append($0) })
        XCTAssertEqual(demuxer.format, .aac)
        XCTAssertEqual(out, audio)
        XCTAssertEqual(titles, [StreamTags(artist: "Band", title: "Song Ü")])
    }

}
