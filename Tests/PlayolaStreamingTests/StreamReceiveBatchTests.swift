import PlayolaStreaming
import XCTest
import PlayolaTestSupport

/// Issue 31: what batch a stream connection asks its socket for (`receiveBatchBytes`): none before it sounds
/// or for a playlist, half a second of the announced bitrate, or of the rate measured once it sounds.
final class StreamReceiveBatchTests: XCTestCase {
    func connection(_ headers: [(name: String, value: String)]) -> StreamConnection {
        let connection = StreamConnection(url: "http://127.0.0.1:9/s", station: StreamStation(name: "s", url: "http://127.0.0.1:9/s"))
        XCTAssertNil(connection.receive(headers: headers))
        return connection
    }

    func feed(_ connection: StreamConnection, _ bytes: Int) {
        let data = [UInt8](repeating: 0xFF, count: bytes)
        _ = data.withUnsafeBytes { connection.receive(body: $0) }
    }

    func testNoBatchBeforeTheStreamSoundsThenHalfASecondOfItsAnnouncedBitrate() {
        let stream = connection([("content-type", "audio/mpeg"), ("icy-br", "128")])
        XCTAssertNil(stream.receiveBatchBytes(now: 0), "filling its jitter buffer: every byte at once")
        stream.isSounding.store(true, ordering: .releasing)
        XCTAssertEqual(stream.receiveBatchBytes(now: 0), 8000, "128 kbit/s for 0.5 s")
    }

    func testWithoutABitrateTheRateIsMeasuredOnceItSounds() {
        let stream = connection([("content-type", "audio/mpeg")])
        feed(stream, 64_000) // the burst on connect, before it sounds: not counted
        stream.isSounding.store(true, ordering: .releasing)
        XCTAssertNil(stream.receiveBatchBytes(now: 100))
        feed(stream, 12_000)
        XCTAssertNil(stream.receiveBatchBytes(now: 101), "not yet measured over 2 s")
        feed(stream, 12_000)
        XCTAssertEqual(stream.receiveBatchBytes(now: 102), 6000, "24000 bytes in 2 s: 12000 B/s for 0.5 s")
    }

    func testAPlaylistIsNeverBatchedAndTheBatchIsBounded() {
        let playlist = connection([("content-type", "audio/x-mpegurl")])
        playlist.isSounding.store(true, ordering: .releasing)
        XCTAssertNil(playlist.receiveBatchBytes(now: 0), "a finite body: its end must not wait")
        XCTAssertEqual(StreamConnection.receiveBatchBytes(bytesPerSecond: 1000), StreamConnection.minBatchBytes)
        XCTAssertEqual(StreamConnection.receiveBatchBytes(bytesPerSecond: 10_000_000), StreamConnection.maxBatchBytes)
    }
}
