import Foundation
import Glibc
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 12, the cache: it never deletes what it did not make, a file is probed before it is trusted
/// (at download and again at start), and a file whose probe the process did not survive cannot take the
/// service down at every start.
final class CacheSafetyTests: XCTestCase {
    final class Lines: Sendable {
        let all = Mutex<[String]>([])
        func add(_ line: String) { all.withLock { $0.append(line) } }
    }

    func downloader(_ cache: AudioCache, lines: Lines = Lines()) -> AudioDownloader {
        AudioDownloader(http: HTTPClient(), cache: cache, attempts: 1, onProblem: { lines.add($0) })
    }

    func contents(_ directory: String) -> [String: Data] {
        var result: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            result[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return result
    }

    func testACacheDirectoryWithAUsersFilesKeepsThem() async throws {
        let server = try FakePlayola()
        for (index, frequency) in [400.0, 500, 600, 700].enumerated() {
            try server.addFile(try Fixtures.tone(frequency, seconds: 2, rate: 48000, codec: .mp3), as: "t\(index).mp3")
        }
        let home = Fixtures.temporaryDirectory("home")
        let mine: [String: Data] = [
            "notes.txt": Data("my notes".utf8),
            "0123456789abcdef.mp3": Data("named like a cache file, but mine".utf8),
            "0123456789abcdef.part": Data("mine too".utf8),
        ]
        for (name, data) in mine { try data.write(to: URL(fileURLWithPath: home + "/" + name)) }
        try FileManager.default.createDirectory(atPath: home + "/photos", withIntermediateDirectories: false)

        // Room for about two of the four files: evictions happen.
        let cache = try AudioCache(directory: home, budgetBytes: 150_000)
        XCTAssertEqual(cache.usage.files, 0, "nothing of the user's is adopted")
        let loader = downloader(cache)
        for index in 0..<4 {
            let result = await loader.file(for: server.fileURL("t\(index).mp3"))
            guard case .success = result else { return XCTFail("\(result)") }
        }
        XCTAssertLessThan(cache.usage.files, 4, "the budget evicted some of the cache's own files")
        _ = try AudioCache(directory: home, budgetBytes: 150_000) // a restart scans again
        _ = try AudioCache(directory: home, budgetBytes: 16_000)  // and evicts down to a smaller budget

        let after = contents(home)
        for (name, data) in mine { XCTAssertEqual(after[name], data, name) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: home + "/photos"))
        XCTAssertNil(after[AudioCache.markerName], "a folder with someone's files is not marked as the cache's")
        XCTAssertEqual(AudioCache.mayUse(home), .success(false))
        XCTAssertEqual(AudioCache.mayUse(Fixtures.temporaryDirectory("empty")), .success(true))
    }

    func testAFileWhoseProbeTheProcessDidNotSurviveIsDroppedAtStartAndNotFetchedAgain() async throws {
        let server = try FakePlayola()
        try server.addFile(try Fixtures.tone(440, seconds: 2, rate: 48000, codec: .mp3), as: "crash.mp3")
        let url = server.fileURL("crash.mp3")
        let directory = Fixtures.temporaryDirectory("crash-cache")
        let cache = try AudioCache(directory: directory, budgetBytes: 16 << 20)
        try server.addFile(try Fixtures.tone(660, seconds: 2, rate: 48000, codec: .mp3), as: "found.mp3")
        let first = downloader(cache)
        guard case .success(let path) = await first.file(for: url),
              case .success(let foundPath) = await first.file(for: server.fileURL("found.mp3")) else { return XCTFail() }
        // What a crash in the decoder during the check leaves behind: the marker written before it (with
        // the URL for a download, without for a file re-checked at start).
        cache.beginProbe(url, path: path)
        cache.beginProbe(nil, path: foundPath)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + ".probe"))

        let restarted = try AudioCache(directory: directory, budgetBytes: 16 << 20)
        XCTAssertEqual(restarted.crashedDuringProbe, [url])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "the file is gone before anything can play it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: foundPath))
        XCTAssertEqual(restarted.usage.files, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".probe"))
        let lines = Lines()
        let result = await downloader(restarted, lines: lines).file(for: url)
        guard case .failure(.backedOff(url, let seconds)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(seconds, 600)
        XCTAssertEqual(try server.requests(matching: "/files/crash.mp3").count, 1, "not fetched again")
        XCTAssertEqual(lines.all.withLock { $0 }.filter { $0.contains(url) }.count, 1, "\(lines.all.withLock { $0 })")
        // A third start finds nothing left to drop: the fault does not repeat.
        XCTAssertEqual(try AudioCache(directory: directory, budgetBytes: 16 << 20).crashedDuringProbe, [])
    }

    func testCachedFilesAreProbedAgainAtStartBeforeAnyIsHandedOut() async throws {
        let server = try FakePlayola()
        try server.addFile(try Fixtures.tone(440, seconds: 2, rate: 48000, codec: .mp3), as: "good.mp3")
        try server.addFile(try Fixtures.tone(550, seconds: 2, rate: 48000, codec: .mp3), as: "spoilt.mp3")
        let (good, spoilt) = (server.fileURL("good.mp3"), server.fileURL("spoilt.mp3"))
        let directory = Fixtures.temporaryDirectory("recheck-cache")
        let cache = try AudioCache(directory: directory, budgetBytes: 16 << 20)
        let first = downloader(cache)
        guard case .success = await first.file(for: good), case .success(let spoiltPath) = await first.file(for: spoilt) else {
            return XCTFail()
        }
        // The file rots on disk (an SD card, a bug, a hand): the next start must not hand it to the player.
        try Data(repeating: 0x42, count: 30_000).write(to: URL(fileURLWithPath: spoiltPath))

        let restarted = try AudioCache(directory: directory, budgetBytes: 16 << 20)
        XCTAssertEqual(restarted.usage.files, 2)
        let lines = Lines()
        let second = downloader(restarted, lines: lines)
        let result = await second.file(for: good)
        XCTAssertEqual(result, .success(restarted.path(for: good)))
        XCTAssertEqual(restarted.usage.files, 1, "the spoilt file was dropped before the first file was handed out")
        XCTAssertEqual(lines.all.withLock { $0 }.count, 1)
        XCTAssertTrue(lines.all.withLock { $0 }.first?.hasPrefix("cached file dropped: \(spoiltPath): ") ?? false, "\(lines.all.withLock { $0 })")
        XCTAssertEqual(try server.requests(matching: "/files/good.mp3").count, 1, "the good file came from the cache")
        // The spoilt one is simply fetched again, probed, and admitted.
        let refetched = await second.file(for: spoilt)
        XCTAssertEqual(refetched, .success(spoiltPath))
        XCTAssertEqual(try server.requests(matching: "/files/spoilt.mp3").count, 2)
    }

    func testAProbeThatHangsIsCutOffAtItsDeadlineAndItsThreadIsAccountedFor() async throws {
        let fifo = Fixtures.temporaryDirectory("fifo") + "/wedge.mp3"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let start = monotonicSeconds()
        let failure = await AudioProbe(deadline: 0.5).check(fifo)
        let seconds = monotonicSeconds() - start
        XCTAssertEqual(failure, .timedOut(path: fifo, seconds: 0.5))
        XCTAssertLessThan(seconds, 1.5)
        XCTAssertEqual(AudioProbe.stuckProbes, 1, "the wedged thread is counted")
        // Unwedge it: a writer opens and closes the FIFO, the decoder sees an empty file and the thread ends.
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(writer, 0)
        close(writer)
        for _ in 0..<100 where AudioProbe.stuckProbes > 0 { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertEqual(AudioProbe.stuckProbes, 0)
    }
}
