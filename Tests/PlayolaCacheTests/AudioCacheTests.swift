import Foundation
import PlayolaEngine
import XCTest

/// The download cache, always checked against the real files in a real directory.
final class AudioCacheTests: XCTestCase {
    private var directories: [String] = []

    override func tearDown() {
        for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
        directories = []
        super.tearDown()
    }

    private func makeDirectory() -> String {
        let path = NSTemporaryDirectory() + "audiocache-\(UUID().uuidString.prefix(8))"
        directories.append(path)
        return path
    }

    /// Every file in `directory` and its size (st_size), `.part` files included, the cache's marker not.
    private func filesOnDisk(_ directory: String) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name != AudioCache.markerName {
            var info = stat()
            if lstat(directory + "/" + name, &info) == 0 { result[name] = Int64(info.st_size) }
        }
        return result
    }

    private func bytesOnDisk(_ directory: String) -> Int64 { filesOnDisk(directory).values.reduce(0, +) }

    private func write(_ bytes: Int64, to path: String, fill: UInt8 = 0x5a) {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: fill, count: Int(bytes))))
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Reserves, writes and commits a file of `bytes` for `url`.
    @discardableResult
    private func admit(_ cache: AudioCache, _ url: String, bytes: Int64) throws -> String {
        let reservation = try cache.reserve(url, bytes: bytes)
        write(bytes, to: reservation.temporaryPath)
        return try cache.commit(reservation)
    }

    // MARK: 1

    func testAdmitLookupEvictsLeastRecentlyLookedUpAndKeepsPinned() throws {
        let directory = makeDirectory()
        let cache = try AudioCache(directory: directory, budgetBytes: 100_000)
        let (a, b, c, d, e) = ("https://cdn.test/a.m4a", "https://cdn.test/b.m4a", "https://cdn.test/c.mp3",
                               "https://cdn.test/d.m4a", "https://cdn.test/e.m4a")
        let pathA = try admit(cache, a, bytes: 30_000)
        XCTAssertEqual(pathA, cache.path(for: a))
        XCTAssertEqual(filesOnDisk(directory), [fileName(a): 30_000])
        try admit(cache, b, bytes: 30_000)
        try admit(cache, c, bytes: 30_000)
        XCTAssertEqual(cache.lookup(a), pathA)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: pathA)), Data(repeating: 0x5a, count: 30_000))
        XCTAssertNil(cache.lookup("https://cdn.test/never.m4a"))

        // Use order is now b, c, a: b was committed before c and never looked up since.
        let reservationD = try cache.reserve(d, bytes: 30_000)
        XCTAssertFalse(exists(cache.path(for: b)))
        XCTAssertNil(cache.lookup(b))
        XCTAssertEqual(Set(filesOnDisk(directory).keys), [fileName(a), fileName(c)])
        write(30_000, to: reservationD.temporaryPath)
        XCTAssertEqual(bytesOnDisk(directory), 90_000)
        _ = try cache.commit(reservationD)

        // Order c, a, d; c is pinned, so a goes next.
        cache.setPinned([c, "https://cdn.test/upcoming-not-downloaded.m4a"])
        XCTAssertEqual(cache.usage.pinnedBytes, 30_000)
        try admit(cache, e, bytes: 30_000)
        XCTAssertEqual(Set(filesOnDisk(directory).keys), [fileName(c), fileName(d), fileName(e)])
        XCTAssertNotNil(cache.lookup(c))

        // Everything pinned: a new file cannot fit, and nothing is deleted trying.
        cache.setPinned([c, d, e])
        XCTAssertThrowsError(try cache.reserve(a, bytes: 20_000)) { error in
            XCTAssertEqual(error as? CacheError,
                           .noSpace(url: a, needed: 20_000, budget: 100_000, pinned: 90_000, reserved: 0))
        }
        XCTAssertEqual(bytesOnDisk(directory), 90_000)
        XCTAssertEqual(cache.usage, CacheUsage(storedBytes: 90_000, reservedBytes: 0, files: 3, pinnedBytes: 90_000))

        // Unpinned again, the least recently used (d) makes room.
        cache.setPinned([c, e])
        try admit(cache, a, bytes: 20_000)
        XCTAssertEqual(Set(filesOnDisk(directory).keys), [fileName(c), fileName(e), fileName(a)])

        // remove deletes even a pinned file.
        cache.remove(c)
        cache.remove("https://cdn.test/absent.m4a")
        XCTAssertFalse(exists(cache.path(for: c)))
        XCTAssertEqual(cache.usage, CacheUsage(storedBytes: 50_000, reservedBytes: 0, files: 2, pinnedBytes: 30_000))
        XCTAssertEqual(bytesOnDisk(directory), 50_000)
    }

    // MARK: 2

    func testRandomWorkloadNeverExceedsTheBudgetOnDisk() throws {
        let directory = makeDirectory()
        let budget: Int64 = 200_000
        let cache = try AudioCache(directory: directory, budgetBytes: budget)
        var random = SplitMix64(seed: 0x00C0_FFEE)
        let urls = (0..<24).map { "https://cdn.test/station/\($0)/song.\(["m4a", "mp3", "wav"][$0 % 3])?sig=\($0 * 7)" }
        /// Downloads in progress: bytes reserved (grown since `reservation` was handed out) and written.
        var reservations: [String: (reservation: CacheReservation, bytes: Int64, written: Int64)] = [:]
        var pinned: Set<String> = []
        /// Pinned URLs whose file was on disk while pinned and not removed: these must never disappear.
        var mustExist: [String: Int64] = [:]
        var counts: [String: Int] = [:]

        func expectedNoSpace(_ url: String, needed: Int64) -> CacheError {
            let files = filesOnDisk(directory)
            let pinnedBytes = pinned.reduce(Int64(0)) { $0 + (files[fileName($1)] ?? 0) }
            let others = reservations.filter { $0.key != url }.values.reduce(Int64(0)) { $0 + $1.bytes }
            return .noSpace(url: url, needed: needed, budget: budget, pinned: pinnedBytes, reserved: others)
        }

        for step in 0..<500 {
            let url = urls[Int.random(in: 0..<urls.count, using: &random)]
            let operation = Int.random(in: 0..<100, using: &random)
            let before = filesOnDisk(directory).keys.filter { !$0.hasSuffix(".part") }
            let name: String
            switch operation {
            case 0..<30:
                name = "reserve"
                let bytes = Int64.random(in: 1_000...60_000, using: &random)
                let previous = reservations[url]
                do {
                    let reservation = try cache.reserve(url, bytes: bytes)
                    XCTAssertEqual(reservation.bytes, max(bytes, previous?.bytes ?? 0), "step \(step)")
                    XCTAssertEqual(reservation.existingBytes, previous?.written ?? 0, "step \(step): resume point")
                    XCTAssertEqual(reservation.temporaryPath, cache.path(for: url) + ".part")
                    // A downloader writes all of what it reserved, or stops part way.
                    let written = Bool.random(using: &random)
                        ? reservation.bytes : Int64.random(in: reservation.existingBytes...reservation.bytes, using: &random)
                    write(written, to: reservation.temporaryPath)
                    reservations[url] = (reservation, reservation.bytes, written)
                } catch {
                    counts["noSpace", default: 0] += 1
                    XCTAssertEqual(error, expectedNoSpace(url, needed: bytes), "step \(step)")
                }
            case 30..<38:
                name = "grow"
                guard let (reservation, reserved, _) = reservations[url] else { continue }
                let bytes = reserved + Int64.random(in: 1_000...30_000, using: &random)
                do {
                    try cache.grow(reservation, to: bytes)
                    write(bytes, to: reservation.temporaryPath)
                    reservations[url]?.bytes = bytes
                    reservations[url]?.written = bytes
                } catch {
                    counts["noSpace", default: 0] += 1
                    XCTAssertEqual(error, expectedNoSpace(url, needed: bytes), "step \(step)")
                }
            case 38..<60:
                name = "commit"
                guard let (reservation, _, written) = reservations.removeValue(forKey: url) else { continue }
                let path = try cache.commit(reservation)
                XCTAssertEqual(filesOnDisk(directory)[fileName(url)], written, "step \(step)")
                XCTAssertFalse(exists(reservation.temporaryPath))
                if pinned.contains(url) { mustExist[url] = written }
                XCTAssertEqual(path, cache.path(for: url))
            case 60..<70:
                name = "abandon"
                guard let (reservation, _, _) = reservations.removeValue(forKey: url) else { continue }
                cache.abandon(reservation)
                XCTAssertFalse(exists(reservation.temporaryPath), "step \(step)")
            case 70..<85:
                name = "lookup"
                let path = cache.lookup(url)
                XCTAssertEqual(path != nil, exists(cache.path(for: url)), "step \(step)")
            case 85..<95:
                name = "setPinned"
                // The playing and upcoming spins: some cached, maybe one still to download.
                let files = filesOnDisk(directory)
                let cached = urls.filter { files[fileName($0)] != nil }.shuffled(using: &random)
                pinned = Set(cached.prefix(Int.random(in: 0...4, using: &random)))
                if Bool.random(using: &random) { pinned.insert(url) }
                cache.setPinned(pinned)
                mustExist = [:]
                for url in pinned { if let size = files[fileName(url)] { mustExist[url] = size } }
            default:
                name = "remove"
                cache.remove(url)
                mustExist[url] = nil
                XCTAssertFalse(exists(cache.path(for: url)), "step \(step)")
            }
            counts[name, default: 0] += 1

            let files = filesOnDisk(directory)
            let complete = files.filter { !$0.key.hasSuffix(".part") }
            if name != "remove", before.contains(where: { complete[$0] == nil }) { counts["eviction", default: 0] += 1 }
            let parts = files.filter { $0.key.hasSuffix(".part") }
            XCTAssertLessThanOrEqual(files.values.reduce(0, +), budget, "step \(step) \(name): over budget on disk")
            for (url, size) in mustExist {
                XCTAssertEqual(files[fileName(url)], size, "step \(step) \(name): pinned \(url) lost")
            }
            let usage = cache.usage
            XCTAssertLessThanOrEqual(usage.storedBytes + usage.reservedBytes, budget, "step \(step) \(name): over budget")
            XCTAssertEqual(usage.storedBytes, complete.values.reduce(0, +), "step \(step) \(name)")
            XCTAssertEqual(usage.files, complete.count, "step \(step) \(name)")
            XCTAssertEqual(usage.reservedBytes, reservations.values.reduce(0) { $0 + $1.bytes }, "step \(step) \(name)")
            XCTAssertEqual(Set(parts.keys), Set(reservations.keys.map { fileName($0) + ".part" }), "step \(step) \(name)")
            for (url, download) in reservations {
                XCTAssertEqual(parts[fileName(url) + ".part"], download.written, "step \(step) \(name)")
            }
            XCTAssertEqual(usage.pinnedBytes, pinned.reduce(0) { $0 + (complete[fileName($1)] ?? 0) }, "step \(step) \(name)")
        }
        // The workload must have exercised every path, evictions and refusals included.
        for name in ["reserve", "grow", "commit", "abandon", "lookup", "setPinned", "remove", "noSpace", "eviction"] {
            XCTAssertGreaterThan(counts[name, default: 0], 5, name)
        }
    }

    // MARK: 3

    func testRestartKeepsCompleteFilesDeletesPartialOnesLeavesOthersAloneAndEvictsToANewBudget() throws {
        let directory = makeDirectory()
        let (old, new, partial) = ("https://cdn.test/old.mp3", "https://cdn.test/new.m4a", "https://cdn.test/partial.m4a")
        let strays = ["notes.txt": Int64(500), "0123456789ABCDEF.m4a": 700, "link": 0]
        do {
            let cache = try AudioCache(directory: directory, budgetBytes: 100_000)
            let oldPath = try admit(cache, old, bytes: 10_000)
            try admit(cache, new, bytes: 20_000)
            // The scan has only mtimes to order by: make "old" clearly the older file.
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                                  ofItemAtPath: oldPath)
            let reservation = try cache.reserve(partial, bytes: 40_000)
            write(15_000, to: reservation.temporaryPath)
            // Names the cache did not make: someone else's, never deleted (issue 12).
            write(500, to: directory + "/notes.txt")
            write(700, to: directory + "/0123456789ABCDEF.m4a")  // not a key: upper-case hex
            write(900, to: directory + "/" + fileName(old) + ".toolong")
            try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: "/nonexistent")
            XCTAssertEqual(filesOnDisk(directory).count, 7)
        }

        var expectedStrays = strays.merging([fileName(old) + ".toolong": 900]) { $1 }
        expectedStrays["link"] = Int64("/nonexistent".utf8.count)
        let reopened = try AudioCache(directory: directory, budgetBytes: 100_000)
        XCTAssertEqual(filesOnDisk(directory), expectedStrays.merging([fileName(old): 10_000, fileName(new): 20_000]) { $1 })
        XCTAssertEqual(reopened.usage, CacheUsage(storedBytes: 30_000, reservedBytes: 0, files: 2, pinnedBytes: 0))
        XCTAssertEqual(reopened.lookup(old), reopened.path(for: old))
        XCTAssertEqual(reopened.lookup(new), reopened.path(for: new))
        XCTAssertNil(reopened.lookup(partial))
        XCTAssertEqual(try reopened.reserve(partial, bytes: 40_000).existingBytes, 0)

        let smaller = try AudioCache(directory: directory, budgetBytes: 25_000)
        XCTAssertEqual(filesOnDisk(directory), expectedStrays.merging([fileName(new): 20_000]) { $1 })
        XCTAssertNil(smaller.lookup(old))
        XCTAssertNotNil(smaller.lookup(new))

        _ = try AudioCache(directory: directory, budgetBytes: 19_999)
        XCTAssertEqual(filesOnDisk(directory), expectedStrays)
    }

    func testCreatesMissingDirectoriesAndRefusesAFile() throws {
        let base = makeDirectory()
        let nested = base + "/one/two/"
        let cache = try AudioCache(directory: nested, budgetBytes: 1_000)
        XCTAssertEqual(cache.directory, base + "/one/two")
        XCTAssertEqual(cache.path(for: "https://x.test/a.mp3"), base + "/one/two/" + fileName("https://x.test/a.mp3"))
        write(10, to: base + "/file")
        XCTAssertThrowsError(try AudioCache(directory: base + "/file", budgetBytes: 1_000)) { error in
            guard case .cannotCreate(let directory, _) = error as? CacheError else { return XCTFail("\(error)") }
            XCTAssertEqual(directory, base + "/file")
        }
    }

    // MARK: 4

    func testReservingAgainReportsTheBytesAlreadyDownloaded() throws {
        let directory = makeDirectory()
        let cache = try AudioCache(directory: directory, budgetBytes: 100_000)
        let url = "https://cdn.test/resume.m4a"
        let first = try cache.reserve(url, bytes: 50_000)
        XCTAssertEqual(first.existingBytes, 0)
        write(12_000, to: first.temporaryPath)

        // The connection dropped; the downloader asks again and resumes with a Range request.
        let again = try cache.reserve(url, bytes: 50_000)
        XCTAssertEqual([again.url, again.temporaryPath], [url, first.temporaryPath])
        XCTAssertEqual([again.bytes, again.existingBytes], [50_000, 12_000])
        XCTAssertEqual(try cache.reserve(url, bytes: 70_000).bytes, 70_000)
        XCTAssertEqual(try cache.reserve(url, bytes: 1_000).bytes, 70_000)
        XCTAssertEqual(cache.usage.reservedBytes, 70_000)

        cache.abandon(again)
        XCTAssertFalse(exists(first.temporaryPath))
        XCTAssertEqual(cache.usage.reservedBytes, 0)
        XCTAssertEqual(try cache.reserve(url, bytes: 50_000).existingBytes, 0)

        // A `.part` no reservation knows of is resumed from if it can be the file's beginning...
        let other = "https://cdn.test/other.mp3"
        write(3_000, to: cache.path(for: other) + ".part")
        XCTAssertEqual(try cache.reserve(other, bytes: 10_000).existingBytes, 3_000)
        // ...and deleted if it is longer than the whole file.
        let stale = "https://cdn.test/stale.mp3"
        write(20_000, to: cache.path(for: stale) + ".part")
        XCTAssertEqual(try cache.reserve(stale, bytes: 10_000).existingBytes, 0)
        XCTAssertEqual(filesOnDisk(directory)[fileName(stale) + ".part"], nil)
        XCTAssertLessThanOrEqual(bytesOnDisk(directory), 100_000)
    }

    func testGrowAndCommitOfAFileLongerThanReserved() throws {
        let directory = makeDirectory()
        let cache = try AudioCache(directory: directory, budgetBytes: 100_000)
        let (old, unknown, big) = ("https://cdn.test/old.m4a", "https://cdn.test/live.mp3", "https://cdn.test/big.m4a")
        try admit(cache, old, bytes: 40_000)

        // Length unknown: start with nothing and grow as bytes arrive; old is evicted only when needed.
        let reservation = try cache.reserve(unknown, bytes: 0)
        try cache.grow(reservation, to: 60_000)
        XCTAssertTrue(exists(cache.path(for: old)))
        try cache.grow(reservation, to: 61_000)
        XCTAssertFalse(exists(cache.path(for: old)))
        write(61_000, to: reservation.temporaryPath)
        XCTAssertThrowsError(try cache.grow(reservation, to: 100_001)) { error in
            XCTAssertEqual(error as? CacheError,
                           .noSpace(url: unknown, needed: 100_001, budget: 100_000, pinned: 0, reserved: 0))
        }
        _ = try cache.commit(reservation)
        XCTAssertEqual(cache.usage, CacheUsage(storedBytes: 61_000, reservedBytes: 0, files: 1, pinnedBytes: 0))

        // A server that sent more than it announced: committed if the extra fits, refused if not.
        cache.setPinned([unknown])
        let small = try cache.reserve(big, bytes: 10_000)
        write(39_000, to: small.temporaryPath)
        XCTAssertEqual(try cache.commit(small), cache.path(for: big))
        XCTAssertEqual(filesOnDisk(directory), [fileName(unknown): 61_000, fileName(big): 39_000])
        cache.remove(big)
        let tooSmall = try cache.reserve(big, bytes: 10_000)
        write(39_001, to: tooSmall.temporaryPath)
        XCTAssertThrowsError(try cache.commit(tooSmall)) { error in
            XCTAssertEqual(error as? CacheError,
                           .noSpace(url: big, needed: 39_001, budget: 100_000, pinned: 61_000, reserved: 0))
        }
        cache.abandon(tooSmall)
        XCTAssertEqual(filesOnDisk(directory), [fileName(unknown): 61_000])
        XCTAssertThrowsError(try cache.commit(tooSmall)) { error in
            guard case .io(let path, _) = error as? CacheError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, tooSmall.temporaryPath)
        }
    }

    // MARK: 5

    func testNoSpaceMessageNamesTheNumbers() throws {
        let cache = try AudioCache(directory: makeDirectory(), budgetBytes: 100_000)
        try admit(cache, "https://cdn.test/playing.m4a", bytes: 60_000)
        cache.setPinned(["https://cdn.test/playing.m4a"])
        _ = try cache.reserve("https://cdn.test/next.m4a", bytes: 30_000)
        XCTAssertThrowsError(try cache.reserve("https://cdn.test/later.mp3", bytes: 20_000)) { error in
            XCTAssertEqual(
                "\(error)",
                "cache budget of 100000 bytes is too small: https://cdn.test/later.mp3 needs 20000, pinned files hold 60000"
                    + " and downloads in progress 30000")
        }
        XCTAssertEqual(CacheError.io(path: "/cache/x.part", reason: "fsync failed: I/O error").description,
                       "/cache/x.part: fsync failed: I/O error")
    }

    // MARK: 6

    func testKeysAreStableHexPlusTheExtension() {
        // FNV-1a 64 reference values.
        XCTAssertEqual(AudioCache.key(for: ""), "cbf29ce484222325")
        XCTAssertEqual(AudioCache.key(for: "a"), "af63dc4c8601ec8c")
        XCTAssertEqual(AudioCache.key(for: "foobar"), "85944171f73967e8")

        let url = "https://cdn.test/audio/Song%20One.M4A?token=a.b.mp3#t=1.5"
        let key = AudioCache.key(for: url)
        XCTAssertEqual(key, AudioCache.key(for: url))
        XCTAssertNotNil(key.wholeMatch(of: /[0-9a-f]{16}\.m4a/), key)
        XCTAssertNotEqual(key, AudioCache.key(for: "https://cdn.test/audio/Song%20One.M4A?token=other"))

        let extensions = [
            "https://cdn.test/a.mp3": ".mp3", "https://cdn.test/a.mp3?x=1": ".mp3", "https://cdn.test/a.FLAC": ".flac",
            "https://cdn.test/a.tar.gz": ".gz", "https://cdn.test/a": "", "https://cdn.test/a.b/c": "",
            "https://cdn.test/a.toolong": "", "https://cdn.test/a.m-4": "", "https://cdn.test/a.": "",
            "https://cdn.example.com": "", "https://cdn.example.com?f=x.mp3": "", "https://cdn.test/a.mp3/": "",
            "https://cdn.test/a.wäv": "", "https://cdn.test/a.opus": ".opus",
        ]
        for (url, ext) in extensions {
            let key = AudioCache.key(for: url)
            XCTAssertEqual(String(key.dropFirst(16)), ext, url)
            XCTAssertNotNil(key.prefix(16).wholeMatch(of: /[0-9a-f]{16}/), url)
        }

        let keys = Set((0..<5_000).map { AudioCache.key(for: "https://cdn.test/songs/\($0).m4a") })
        XCTAssertEqual(keys.count, 5_000)
    }
}

private func fileName(_ url: String) -> String { AudioCache.key(for: url) }

/// A seeded generator so a failing workload can be replayed step by step.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
