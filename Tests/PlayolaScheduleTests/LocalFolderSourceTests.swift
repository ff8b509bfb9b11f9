import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

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

    /// Each track shows its own tags, whatever the format: ID3v2.3, ID3v2.4, ID3v1 only (MP3), the MP4 item
    /// list, Vorbis comments (Ogg Vorbis, Ogg Opus, FLAC); a file without tags shows its name.
    func testTracksAreNamedByTheirTagsOrElseTheirFileName() async throws {
        let folder = Fixtures.temporaryDirectory("tags")
        let wave = "0.25*sin(2*PI*440*t)"
        let files: [(name: String, codec: [String], tagged: Bool)] = [
            ("1.mp3", ["-c:a", "libmp3lame", "-id3v2_version", "3"], true),
            ("2.mp3", ["-c:a", "libmp3lame", "-id3v2_version", "4"], true),
            ("3.mp3", ["-c:a", "libmp3lame", "-write_id3v1", "1"], true),  // its ID3v2 tag is cut off below
            ("4.m4a", ["-c:a", "aac"], true),
            ("5.ogg", ["-c:a", "libvorbis"], true),
            ("6.opus", ["-c:a", "libopus", "-ar", "48000"], true),
            ("7.flac", ["-c:a", "flac"], true),
            ("8 untagged.mp3", ["-c:a", "libmp3lame", "-id3v2_version", "0"], false),
        ]
        for file in files {
            let number = file.name.prefix(1)
            let tags = file.tagged ? ["-metadata", "title=Song \(number) é", "-metadata", "artist=Band \(number)"] : []
            try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=\(wave)|\(wave):s=44100:d=5"]
                             + file.codec + tags + [folder + "/" + file.name])
        }
        // ID3v1 only: ffmpeg writes none without an ID3v2 tag, so the ID3v2 tag (its syncsafe size) is cut off.
        let withBoth = try Data(contentsOf: URL(fileURLWithPath: folder + "/3.mp3"))
        XCTAssertEqual(withBoth.prefix(3), Data("ID3".utf8))
        let tagLength = 10 + withBoth[6...9].reduce(0) { $0 << 7 | Int($1) }
        try withBoth.dropFirst(tagLength).write(to: URL(fileURLWithPath: folder + "/3.mp3"))
        let source = LocalFolderSource(stationID: "tags", path: folder, clock: ManualClock(PlayolaDate.parse("2026-01-01T12:00:00Z")!))
        let spins = try await source.fetchSchedule(retrying: false).schedule.spins
        var shown: [String: String] = [:]
        for spin in spins { shown[spin.audioBlock.id] = spin.audioBlock.artist + " / " + spin.audioBlock.title }
        for file in files {
            let number = file.name.prefix(1)
            XCTAssertEqual(shown[file.name], file.tagged ? "Band \(number) / Song \(number) é" : " / 8 untagged", file.name)
        }
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
