import Foundation
import Glibc
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 12, the network: what a hostile API or CDN can hand the downloader, against the fake API on
/// loopback. Each case ends with a named error within a time bound, and the cache's byte budget holds
/// on disk throughout.
final class HostileNetworkTests: XCTestCase {
    final class Problems: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    final class Watch: Sendable {
        let running = Atomic<Bool>(true)
        let largest = Mutex<Int64>(0)
        func note(_ bytes: Int64) { largest.withLock { $0 = max($0, bytes) } }
    }

    struct Rig {
        let server: FakePlayola
        let http: HTTPClient
        let cache: AudioCache
        let downloader: AudioDownloader
        let problems: Problems
    }

    func rig(budget: Int64 = 16 << 20, attempts: Int = 1, deadline: Double = 300) throws -> Rig {
        let server = try FakePlayola()
        let http = HTTPClient()
        let cache = try AudioCache(directory: Fixtures.temporaryDirectory("hostile-cache"), budgetBytes: budget)
        let problems = Problems()
        let downloader = AudioDownloader(http: http, cache: cache, attempts: attempts, backoff: (0.1, 0.2),
                                         deadline: deadline, onProblem: { problems.add($0) })
        return Rig(server: server, http: http, cache: cache, downloader: downloader, problems: problems)
    }

    /// Bytes of every file in the cache's directory (its marker aside).
    static func bytesOnDisk(_ cache: AudioCache) -> Int64 {
        var total: Int64 = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cache.directory)) ?? [] where name != AudioCache.markerName {
            var info = stat()
            if stat(cache.directory + "/" + name, &info) == 0 { total += Int64(info.st_size) }
        }
        return total
    }

    func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = monotonicSeconds()
        let value = try await body()
        return (value, monotonicSeconds() - start)
    }

    func testAChunkedBodyLongerThanItsContentLengthStopsAtTheAnnouncedLength() async throws {
        let rig = try rig()
        let url = rig.server.fileURL("huge.mp3")
        try rig.server.fault([["match": "/files/huge.mp3", "action": ["type": "chunked_overflow", "length": 1000, "bytes": 200 << 20]]])
        // The budget is watched on disk while the server pushes its 200 MB.
        let watch = Watch()
        let cache = rig.cache
        let watcher = Task.detached {
            while watch.running.load(ordering: .relaxed) {
                watch.note(HostileNetworkTests.bytesOnDisk(cache))
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let (result, seconds) = await timed { await rig.downloader.file(for: url) }
        watch.running.store(false, ordering: .relaxed)
        await watcher.value
        XCTAssertEqual(result, .failure(.http(url, .bodyTooLong(url: url, limit: 1000))))
        XCTAssertLessThan(seconds, 5)
        XCTAssertLessThanOrEqual(watch.largest.withLock { $0 }, 1000, "never more than the announced length on disk")
        XCTAssertEqual(Self.bytesOnDisk(rig.cache), 0, "the partial file is gone")
        XCTAssertEqual(rig.cache.usage, CacheUsage(storedBytes: 0, reservedBytes: 0, files: 0, pinnedBytes: 0))
        // The hostile URL is backed off: asked again, nothing is requested.
        let again = await rig.downloader.file(for: url)
        guard case .failure(.backedOff(url, _)) = again else { return XCTFail("\(again)") }
        XCTAssertEqual(try rig.server.requests(matching: "/files/huge.mp3").count, 1)
        // The transfer was stopped, not drained: the server could hand over little more than the socket buffers.
        var sent: Int?
        for _ in 0..<50 where sent == nil {
            sent = try rig.server.requests(matching: "/files/huge.mp3").first?["sent"] as? Int
            if sent == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let served = try XCTUnwrap(sent, "the server saw the connection close")
        XCTAssertLessThan(served, 16 << 20, "of 200 MB offered")
        print("chunked overflow: the server got \(served) bytes out before the client stopped, in \(seconds) s")
    }

    /// Responses that lie about their length: each ends with a named error within 3 s, nothing is left
    /// on disk, and the cache's accounts are back to zero.
    func testResponsesThatLieAboutTheirLengthEndInANamedError() async throws {
        let rig = try rig(budget: 16 << 20)
        let cases: [(name: String, head: String, bytes: Int, expected: (String) -> String)] = [
            ("huge", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999", 0, // refused at the headers, no body needed
             { "cannot cache \($0): cache budget of 16777216 bytes is too small: \($0) needs 99999999999, pinned files hold 0 and downloads in progress 0" }),
            ("overflowing", "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807", 100_000,
             { "cannot cache \($0): cache budget of 16777216 bytes is too small: \($0) needs 9223372036854775807, pinned files hold 0 and downloads in progress 0" }),
            ("unsized", "HTTP/1.1 200 OK\r\nConnection: close", 5000,
             { "download of \($0) refused: no usable length in the response (HTTP 200)" }),
            ("badrange", "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/lots\r\nContent-Length: 10", 10,
             { "download of \($0) refused: no usable length in the response (HTTP 206)" }),
            ("short", "HTTP/1.1 200 OK\r\nContent-Length: 1000", 500,
             { "download of \($0) failed: connection ended early: \($0): Transferred a partial file" }),
        ]
        for item in cases {
            let url = rig.server.fileURL("\(item.name).mp3")
            try rig.server.fault([["match": "/files/\(item.name).mp3", "action": ["type": "raw", "head": item.head, "bytes": item.bytes]]])
            let (result, seconds) = await timed { await rig.downloader.file(for: url) }
            guard case .failure(let error) = result else { XCTFail("\(item.name): \(result)"); continue }
            XCTAssertEqual("\(error)", item.expected(url), item.name)
            XCTAssertLessThan(seconds, 3, item.name)
            XCTAssertEqual(Self.bytesOnDisk(rig.cache), 0, item.name)
            XCTAssertEqual(rig.cache.usage, CacheUsage(storedBytes: 0, reservedBytes: 0, files: 0, pinnedBytes: 0), item.name)
        }
    }

    func testTheBadFileBackoffDoublesAndRemembersABoundedNumberOfURLs() async throws {
        let server = try FakePlayola()
        let junk = Fixtures.temporaryDirectory("junk") + "/junk.mp3"
        try Data(repeating: 0x42, count: 20_000).write(to: URL(fileURLWithPath: junk))
        for index in 0..<6 { try server.addFile(junk, as: "j\(index).mp3") }
        let cache = try AudioCache(directory: Fixtures.temporaryDirectory("backoff-cache"), budgetBytes: 16 << 20)
        let downloader = AudioDownloader(http: HTTPClient(), cache: cache, attempts: 1, badFileBackoff: (0.5, 0.8),
                                         badFilesRemembered: 4)
        let url = server.fileURL("j0.mp3")
        func fetches(_ name: String) throws -> Int { try server.requests(matching: "/files/\(name)").count }

        guard case .failure(.notAudio(_, _, retryIn: 0)) = await downloader.file(for: url) else { return XCTFail() }
        guard case .failure(.backedOff) = await downloader.file(for: url) else { return XCTFail() }
        XCTAssertEqual(try fetches("j0.mp3"), 1)
        try await Task.sleep(for: .seconds(0.6))
        _ = await downloader.file(for: url) // fetched again after 0.5 s, fails again: now 0.8 s (doubled, capped)
        XCTAssertEqual(try fetches("j0.mp3"), 2)
        try await Task.sleep(for: .seconds(0.6))
        guard case .failure(.backedOff) = await downloader.file(for: url) else { return XCTFail("the wait doubled") }
        XCTAssertEqual(try fetches("j0.mp3"), 2)

        // Five more bad URLs with room for four: the one whose wait ends first (j0) is forgotten.
        for index in 1..<6 { _ = await downloader.file(for: server.fileURL("j\(index).mp3")) }
        _ = await downloader.file(for: url)
        XCTAssertEqual(try fetches("j0.mp3"), 3, "forgotten, so fetched again")
        for index in 3..<6 {
            guard case .failure(.backedOff) = await downloader.file(for: server.fileURL("j\(index).mp3")) else { return XCTFail("j\(index)") }
        }
    }

    func testURLsOtherThanHTTPAreRefusedWithoutARequest() async throws {
        let rig = try rig()
        for url in ["file:///etc/passwd", "FILE:///etc/shadow", "gopher://127.0.0.1:70/_x", "dict://127.0.0.1:11211/stats",
                    "ftp://127.0.0.1/a.mp3", "/etc/passwd", "http://127.0.0.1/a\r\nX-Evil: 1"] {
            let (result, seconds) = await timed { await rig.downloader.file(for: url) }
            XCTAssertEqual(result, .failure(.unsupportedURL(url)), url)
            XCTAssertLessThan(seconds, 1)
        }
        XCTAssertEqual(try rig.server.requests().count, 0)
        // The HTTP client itself speaks http and https only, whoever calls it.
        for url in ["file:///etc/passwd", "gopher://127.0.0.1:70/_x", "dict://127.0.0.1:11211/stats"] {
            do {
                _ = try await rig.http.send(HTTPRequest(url: url))
                XCTFail("\(url) was fetched")
            } catch {
                XCTAssertEqual(error, .unsupportedProtocol(url))
            }
        }
    }

    func testRedirectsToFileOrGopherAreRefusedAndReachNothing() async throws {
        let rig = try rig()
        let listener = try LoopbackListener()
        let targets = ["file:///etc/passwd", "gopher://127.0.0.1:\(listener.port)/_PING", "dict://127.0.0.1:\(listener.port)/info"]
        for (index, target) in targets.enumerated() {
            let name = "redirect\(index).mp3"
            try rig.server.fault([["match": "/files/\(name)", "action": ["type": "redirect", "location": target]]])
            let url = rig.server.fileURL(name)
            let (result, seconds) = await timed { await rig.downloader.file(for: url) }
            XCTAssertEqual(result, .failure(.http(url, .unsupportedProtocol(target))), target)
            XCTAssertLessThan(seconds, 2)
        }
        XCTAssertFalse(listener.wasContacted, "a redirect reached the local TCP service")
        XCTAssertEqual(Self.bytesOnDisk(rig.cache), 0)
    }

    func testADownloadThatTricklesIsEndedByItsDeadline() async throws {
        let rig = try rig(deadline: 1.5)
        let tone = try Fixtures.tone(440, seconds: 1, rate: 48000, codec: .mp3)
        try rig.server.addFile(tone, as: "slow.mp3")
        try rig.server.fault([["match": "/files/slow.mp3", "action": ["type": "trickle", "seconds": 0.2]]])
        let url = rig.server.fileURL("slow.mp3")
        let (result, seconds) = await timed { await rig.downloader.file(for: url) }
        guard case .failure(.http(url, .timeout)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(seconds, 1.5, accuracy: 1, "one byte every 0.2 s never stalls, but the deadline ends it")
    }

    func testAHeaderValueWithCRLFIsNeverSent() async throws {
        let rig = try rig()
        do {
            _ = try await rig.http.send(HTTPRequest(
                url: rig.server.base + "/v1/listeningSessions", method: .post,
                headers: ["Authorization: Bearer good\r\nX-Smuggled: yes", "Content-Type: application/json"], body: Data("{}".utf8)))
            XCTFail("sent")
        } catch {
            XCTAssertEqual(error, .invalidHeader("Authorization"))
            XCTAssertEqual("\(error)", "refused: the request header Authorization holds a control character")
        }
        XCTAssertEqual(try rig.server.requests().count, 0)
    }

    func testAFileThatDoesNotDecodeNeverEntersTheCacheAndIsBackedOff() async throws {
        let rig = try rig()
        let junk = Fixtures.temporaryDirectory("junk") + "/junk.mp3"
        try Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: URL(fileURLWithPath: junk))
        try rig.server.addFile(junk, as: "junk.mp3")
        let good = try Fixtures.tone(440, seconds: 2, rate: 48000, codec: .mp3)
        try rig.server.addFile(good, as: "good.mp3")
        let url = rig.server.fileURL("junk.mp3")

        let (result, seconds) = await timed { await rig.downloader.file(for: url) }
        guard case .failure(.notAudio(url, _, let retryIn)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(retryIn, 600)
        XCTAssertLessThan(seconds, 6)
        XCTAssertNil(rig.cache.lookup(url))
        XCTAssertEqual(Self.bytesOnDisk(rig.cache), 0, "neither the file nor its .part nor a probe marker is left")
        XCTAssertEqual(rig.problems.lines.withLock { $0 }, [], "a bad file is the caller's to name, once")
        let again = await rig.downloader.file(for: url)
        XCTAssertEqual(again, .failure(.backedOff(url, seconds: 600)))
        XCTAssertEqual(try rig.server.requests(matching: "/files/junk.mp3").count, 1, "not fetched again")

        // The next file is fetched and admitted as usual.
        let admitted = await rig.downloader.file(for: rig.server.fileURL("good.mp3"))
        XCTAssertEqual(admitted, .success(rig.cache.path(for: rig.server.fileURL("good.mp3"))))
    }
}

/// A TCP port on 127.0.0.1 that accepts nothing but remembers whether anyone connected.
final class LoopbackListener {
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    var wasContacted: Bool {
        let client = accept(fd, nil, nil)
        if client >= 0 { close(client) }
        return client >= 0
    }
}
