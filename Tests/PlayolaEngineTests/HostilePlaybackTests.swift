import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 12, end to end through the live player on a paced sink: a bad file served by the fake API for
/// one spin, and an API `Date` a day off followed by a local station.
final class HostilePlaybackTests: XCTestCase {
    func rig(_ server: FakePlayola) throws -> PacedPlayer {
        try PacedPlayer(server: server, cacheBudget: 16 << 20, cacheFolder: "hostile-player-cache", for: self)
    }

    /// Spins relative to the server's now: (id, frequency or nil for a file that is not audio, from, seconds).
    func serve(_ server: FakePlayola, station: String, _ spins: [(String, Double?, Double, Double)], offset: Double = 0) throws {
        for (id, frequency, _, seconds) in spins {
            if let frequency {
                try server.addFile(try Fixtures.tone(frequency, seconds: seconds, rate: 48000, codec: .mp3), as: "\(id).mp3")
            } else {
                let junk = Fixtures.temporaryDirectory("junk") + "/\(id).mp3"
                try Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }).write(to: URL(fileURLWithPath: junk))
                try server.addFile(junk, as: "\(id).mp3")
            }
        }
        // After the files are made (ffmpeg may take a while the first time), so the airtimes hold.
        let now = Date().addingTimeInterval(offset)
        var served: [Spin] = []
        for (id, _, from, seconds) in spins {
            served.append(Spin(id: id, stationID: station, airtime: now.addingTimeInterval(from), startingVolume: 1, fades: [],
                               audioBlock: AudioBlock(id: "b-\(id)", title: id, artist: "t", durationMS: Int(seconds * 1000),
                                                      endOfMessageMS: Int(seconds * 1000), downloadURL: server.fileURL("\(id).mp3"))))
        }
        try server.serve(station: station, spins: served)
    }

    func testABadFileForOneSpinLeavesTheOtherSpinsPlayingAndIsNamedOnce() async throws {
        let server = try FakePlayola()
        try serve(server, station: "s", [("before", 600, -2, 5), ("bad", nil, 3, 3), ("after", 900, 6, 6)])
        // The airtimes count from here (within the serve's last milliseconds); what is listened for is placed
        // by the time that has passed, not by the sleeps, which a loaded machine makes longer.
        let origin = Date()
        let rig = try rig(server)
        let badURL = server.fileURL("bad.mp3")
        await rig.player.play(stationID: "s")
        try await Task.sleep(for: .seconds(1.5))
        XCTAssertGreaterThan(rig.amplitude(600, secondsAgo: 0.3), 0.2, "the spin before plays")
        try await Task.sleep(for: .seconds(6.5)) // now ≈ 8 s: the bad spin's window (3–6 s) is 2–5 s ago
        XCTAssertGreaterThan(rig.amplitude(900, secondsAgo: 0.3), 0.2, "the spin after plays")
        let now = Date().timeIntervalSince(origin)
        for at in [3.5, 4.5, 5.5] {
            let ago = now - at
            XCTAssertLessThan(rig.amplitude(600, secondsAgo: ago) + rig.amplitude(900, secondsAgo: ago), 0.01,
                              "silence for the bad spin, \(at) s into the schedule (\(ago) s ago)")
        }
        let state = await rig.player.state
        guard case .playing(.spin(let spin)) = state else { return XCTFail("\(state)") }
        XCTAssertEqual(spin.id, "after")
        XCTAssertNil(rig.parts.cache.lookup(badURL), "the bad file is not in the cache")
        XCTAssertFalse((try FileManager.default.contentsOfDirectory(atPath: rig.parts.cache.directory)).contains { $0.hasPrefix(AudioCache.key(for: badURL).prefix(16)) })
        XCTAssertEqual(try server.requests(matching: "/files/bad.mp3").count, 1)
        let named = rig.notices.withLock { $0 }.filter { $0.contains(badURL) }
        XCTAssertEqual(named.count, 1, "\(named)")
        XCTAssertTrue(named.first?.hasPrefix("spin bad will be silent: \(badURL) is not playable audio: ") ?? false, "\(named)")

        // Played again (a new generation asks the downloader again): not fetched, not named again.
        await rig.player.stop()
        await rig.player.play(stationID: "s")
        try await Task.sleep(for: .seconds(1))
        XCTAssertEqual(try server.requests(matching: "/files/bad.mp3").count, 1, "backed off, not fetched again")
        XCTAssertEqual(rig.notices.withLock { $0 }.filter { $0.contains(badURL) }.count, 1)
        XCTAssertGreaterThan(rig.amplitude(900, secondsAgo: 0.3), 0.2)
    }

    func testAServerDateADayOffDoesNotSilenceALocalStation() async throws {
        let server = try FakePlayola()
        _ = try server.control("POST", "/_clock", ["offset": 86_400])
        try serve(server, station: "tomorrow", [("now", 600, -5, 30)], offset: 86_400)
        let rig = try rig(server)
        await rig.player.play(stationID: "tomorrow")
        try await Task.sleep(for: .seconds(1.5))
        XCTAssertGreaterThan(rig.amplitude(600, secondsAgo: 0.3), 0.2, "the Playola station plays on the server's time")
        XCTAssertEqual(rig.parts.clock.correction, 86_400, accuracy: 2)

        let folder = Fixtures.temporaryDirectory("local-after-skew")
        try FileManager.default.copyItem(atPath: try Fixtures.tone(700, seconds: 20, rate: 48000, codec: .mp3), toPath: folder + "/a.mp3")
        try FileManager.default.copyItem(atPath: try Fixtures.tone(800, seconds: 20, rate: 48000, codec: .mp3), toPath: folder + "/b.mp3")
        await rig.player.play(LocalFolderSource(stationID: "home", path: folder))
        try await Task.sleep(for: .seconds(2))
        XCTAssertGreaterThan(max(rig.amplitude(700, secondsAgo: 0.3), rig.amplitude(800, secondsAgo: 0.3)), 0.2,
                             "the local station plays on this machine's clock")
        XCTAssertEqual(rig.parts.clock.now().timeIntervalSinceNow, 0, accuracy: 1)
        let state = await rig.player.state
        guard case .playing = state else { return XCTFail("\(state)") }

        // Back on the Playola station, its correction applies again.
        await rig.player.play(stationID: "tomorrow")
        try await Task.sleep(for: .seconds(1.5))
        XCTAssertGreaterThan(rig.amplitude(600, secondsAgo: 0.3), 0.2)
    }
}
