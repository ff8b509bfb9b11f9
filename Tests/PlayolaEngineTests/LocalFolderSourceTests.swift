import Foundation
import PlayolaEngine
import XCTest

/// A folder of files as an endless wall-clock schedule with crossfades (the local station type).
final class LocalFolderSourceTests: XCTestCase {
    func testTheFolderLoopsOnTheWallClockWithCrossfades() async throws {
        let folder = Fixtures.temporaryDirectory("local")
        try FileManager.default.copyItem(atPath: try Fixtures.tone(500, seconds: 6, rate: 44100, codec: .wav), toPath: folder + "/a.wav")
        try FileManager.default.copyItem(atPath: try Fixtures.tone(700, seconds: 8, rate: 48000, codec: .mp3), toPath: folder + "/b.mp3")
        try "not audio".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        let clock = ManualClock(PlayolaDate.parse("2026-01-01T12:00:00Z")!)
        let source = LocalFolderSource(stationID: "home", path: folder, clock: clock)
        let spins = try await source.fetchSchedule(retrying: false).schedule.spins
        XCTAssertEqual(Set(spins.map(\.audioBlock.title)), ["a", "b"], "only the audio files, by name")
        for (spin, next) in zip(spins, spins.dropFirst()) {
            let seconds = Double(spin.audioBlock.durationMS) / 1000
            XCTAssertEqual(next.airtime.timeIntervalSince(spin.airtime), seconds - 2, accuracy: 0.002, "2 s crossfade")
            XCTAssertEqual(spin.fades, [Fade(atMS: spin.audioBlock.durationMS - 2000, toVolume: 0)])
            XCTAssertNotEqual(spin.audioBlock.title, next.audioBlock.title, "the files alternate")
        }
        XCTAssertNotNil(spins.first { $0.airtime <= clock.now() && clock.now() < $0.airtime.addingTimeInterval(Double($0.audioBlock.durationMS) / 1000) })
        XCTAssertGreaterThan(spins.last!.airtime, clock.now().addingTimeInterval(3500), "an hour ahead")
        // The same wall-clock instant is the same spin whenever it is asked: a restart lands where it was.
        clock.advance(by: 30)
        let later = try await source.fetchSchedule(retrying: false).schedule
        let now = clock.now()
        let playing = try XCTUnwrap(later.nowPlaying(at: now))
        XCTAssertEqual(spins.first { $0.id == playing.id }?.airtime, playing.airtime)
    }

    func testAnEmptyFolderIsAClearError() async throws {
        let folder = Fixtures.temporaryDirectory("empty")
        do {
            _ = try await LocalFolderSource(stationID: "home", path: folder).fetchSchedule(retrying: false)
            XCTFail("an empty folder played")
        } catch {
            XCTAssertEqual("\(error)", "station home (no playable audio in \(folder)) has no spins scheduled")
        }
    }

    func testAFolderThatCannotBeReadIsReportedAsSuchNotAsAnEmptySchedule() async throws {
        let folder = Fixtures.temporaryDirectory("gone") + "/missing"
        do {
            _ = try await LocalFolderSource(stationID: "home", path: folder).fetchSchedule(retrying: false)
            XCTFail("a missing folder played")
        } catch .unreadableFolder(let station, let path, let reason) {
            XCTAssertEqual(station, "home")
            XCTAssertEqual(path, folder)
            XCTAssertEqual(reason, "No such file or directory")
        } catch {
            XCTFail("a missing folder was reported as \(error)")
        }
        do {
            _ = try await LocalFolderSource(stationID: "home", path: folder).fetchSchedule(retrying: false)
            XCTFail("a missing folder played")
        } catch {
            XCTAssertEqual("\(error)", "station home: cannot read its folder \(folder): No such file or directory")
        }
    }
}
