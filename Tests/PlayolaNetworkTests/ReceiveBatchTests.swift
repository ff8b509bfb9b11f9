import Foundation
import PlayolaNetwork
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 31: a long-lived stream's socket wakes the network thread once a batch of bytes has arrived, not at
/// every segment, and still hands over every byte, the last ones at the stream's end.
final class ReceiveBatchTests: XCTestCase {
    final class Arrivals: Sendable {
        private let pieces = Mutex<[(seconds: Double, bytes: Int)]>([])
        let start = Date()
        let ended = Atomic<Bool>(false)
        func note(_ bytes: Int) { pieces.withLock { $0.append((Date().timeIntervalSince(start), bytes)) } }
        /// Body callbacks between `from` and `to` seconds after the start.
        func calls(from: Double, to: Double) -> Int { pieces.withLock { $0.filter { $0.seconds >= from && $0.seconds < to }.count } }
        var total: Int { pieces.withLock { $0.reduce(0) { $0 + $1.bytes } } }
    }

    /// 16000 bytes a second in pieces of 1/20 s (800 bytes) after a 2 s burst, as `stream_server.py` paces it.
    func server() throws -> (StreamServer, String) {
        let file = Fixtures.temporaryDirectory("batch") + "/noise.mp3"
        let bytes = (0..<(16000 * 20)).map { _ in UInt8.random(in: 0...255) }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let mount = StreamServer.Mount(path: "/noise.mp3", file: file, contentType: "audio/mpeg", seconds: 20)
        let server = try StreamServer(mounts: [mount])
        return (server, server.url(mount.path))
    }

    /// Receives `url` until it ends or for `seconds` (then cancelled), asking for a batch of `batch` bytes
    /// (nil: none). The result, and when it came (seconds after the start).
    func receive(_ url: String, batch: Int?, seconds: Double) async throws -> (Arrivals, HTTPError?, Double) {
        let http = HTTPClient()
        let arrivals = Arrivals()
        let task = Task { await ReceiveBatchTests.stream(http, url, arrivals, batch) }
        _ = try await waitUntil(seconds) { arrivals.ended.load(ordering: .acquiring) }
        task.cancel()
        let result = await task.value
        return (arrivals, result, Date().timeIntervalSince(arrivals.start))
    }

    static func stream(
        _ http: HTTPClient, _ url: String, _ arrivals: Arrivals, _ batch: Int?
    ) async -> HTTPError? {
        defer { arrivals.ended.store(true, ordering: .releasing) }
        var receiveBatch: (@Sendable () -> Int?)?
        if let batch { receiveBatch = { batch } }
        do {
            _ = try await http.stream(
                HTTPRequest(url: url, timeout: 0, stallTimeout: 5), onHeaders: { _, _ in nil },
                onBody: { arrivals.note($0.count); return true }, receiveBatch: receiveBatch)
            return nil
        } catch {
            return error
        }
    }

    func testABatchedStreamIsHandedOverABatchAtATimeNotAPieceAtATime() async throws {
        let (server, url) = try server()
        defer { server.stop() }
        // Past the burst, 2 s of 16000 B/s: 40 pieces of 800 bytes as sent; about 4 batches of 8000.
        let (plain, _, _) = try await receive(url, batch: nil, seconds: 4)
        let (batched, _, _) = try await receive(url, batch: 8000, seconds: 4)
        let plainCalls = plain.calls(from: 1.5, to: 3.5)
        let batchedCalls = batched.calls(from: 1.5, to: 3.5)
        XCTAssertGreaterThanOrEqual(plainCalls, 20, "unbatched, each piece wakes the thread")
        XCTAssertLessThanOrEqual(batchedCalls, 7, "batched at 8000 bytes: about 4 wake-ups in 2 s, not \(plainCalls)")
        XCTAssertGreaterThan(batchedCalls, 0)
        XCTAssertEqual(Double(batched.total), Double(plain.total), accuracy: 16000, "the same bytes arrive, batched or not")
    }

    func testTheLastBytesOfABatchedStreamArriveWhenItEnds() async throws {
        let (server, url) = try server()
        defer { server.stop() }
        // The burst (32000), then 13001 more over 0.8 s, then the server closes: the tail is less than a batch.
        try server.fault([["mode": "eof_after", "bytes": 45_001]])
        let (arrivals, result, seconds) = try await receive(url, batch: 16000, seconds: 10)
        XCTAssertEqual(arrivals.total, 45_001, "every byte, the tail too")
        XCTAssertNil(result, "ended by the server's close, not by an error")
        XCTAssertLessThan(seconds, 3, "the close (about 1 s in) ends it at once, not a stall timeout later")
    }
}
