import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 2, "must be shown" 5: bad files and bad JSON give clear errors naming the file or spin, and the
/// render goes on with silence where that spin was.
final class BadInputTests: XCTestCase {
    func testTruncatedM4AIsReportedAndTheRestPlays() throws {
        let good = try Fixtures.tone(700, seconds: 6, rate: 48000, codec: .m4a)
        let data = try Data(contentsOf: URL(fileURLWithPath: good))
        // ffmpeg writes moov last: cut inside mdat at 60 %, and put moov back, as an interrupted copy of
        // a faststart file would look. Simplest faithful version: keep the table, lose the audio tail.
        let folder = Fixtures.temporaryDirectory("truncated")
        let faststart = folder + "/faststart.m4a"
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-i", good, "-c", "copy", "-movflags", "+faststart", faststart])
        let whole = try Data(contentsOf: URL(fileURLWithPath: faststart))
        XCTAssertEqual(whole.count > data.count / 2, true)
        let cut = folder + "/cut.m4a"
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: cut))

        let (events, analysis) = try renderAround(brokenFile: cut)
        let error = try XCTUnwrap(events.first { $0.spin.id == "broken" && $0.kind == .error })
        XCTAssertTrue(error.detail.contains(cut) && error.detail.contains("truncated"), error.detail)
        assertPlays(analysis, 700, at: 3, "the part that is there plays")
        XCTAssertLessThan(analysis.amplitude(of: 700, around: 7 * 48000), 0.001, "silence after the cut")
        assertPlays(analysis, 1000, at: 9, "the next spin plays")
    }

    func testTruncatedMP3EndsEarlyWithAMessage() throws {
        let good = try Fixtures.tone(700, seconds: 6, rate: 48000, codec: .mp3)
        let data = try Data(contentsOf: URL(fileURLWithPath: good))
        let cut = Fixtures.temporaryDirectory("truncated") + "/cut.mp3"
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let (events, analysis) = try renderAround(brokenFile: cut)
        let error = try XCTUnwrap(events.first { $0.spin.id == "broken" && $0.kind == .error })
        XCTAssertTrue(error.detail.hasPrefix(cut) && error.detail.contains("truncated"), error.detail)
        assertPlays(analysis, 700, at: 3, "the part that is there plays")
        assertPlays(analysis, 1000, at: 9, "the next spin plays")
    }

    func testAFileThatIsNotAudioIsNamedAndItsWindowIsSilent() throws {
        let path = Fixtures.temporaryDirectory("notaudio") + "/song.m4a"
        try "<html><body>403 Forbidden</body></html>".write(toFile: path, atomically: true, encoding: .utf8)
        let (events, analysis) = try renderAround(brokenFile: path)
        let error = try XCTUnwrap(events.first { $0.spin.id == "broken" && $0.kind == .error })
        XCTAssertEqual(error.detail, "\(path): not a known audio format (MP3, AAC/M4A, WAV, FLAC, Ogg)")
        XCTAssertLessThan(analysis.rms(from: 3 * 48000, count: 48000), 1e-6, "silence where the spin was")
        assertPlays(analysis, 400, at: 1, "the spin before plays")
        assertPlays(analysis, 1000, at: 9, "the next spin plays")
    }

    func testAnMP4OfAnotherCodecIsUnsupported() throws {
        let path = Fixtures.temporaryDirectory("alac") + "/lossless.m4a"
        try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=700:r=48000:d=2", "-c:a", "alac", path])
        let (events, _) = try renderAround(brokenFile: path)
        let error = try XCTUnwrap(events.first { $0.spin.id == "broken" && $0.kind == .error })
        XCTAssertEqual(error.detail, "\(path): unsupported: audio codec 'alac' (only AAC is supported in MP4)")
    }

    func testAMissingFileIsNamed() throws {
        let path = Fixtures.temporaryDirectory("missing") + "/nothing-here.mp3"
        let (events, analysis) = try renderAround(brokenFile: path)
        let error = try XCTUnwrap(events.first { $0.spin.id == "broken" && $0.kind == .error })
        XCTAssertEqual(error.detail, "\(path): cannot open: No such file or directory")
        assertPlays(analysis, 1000, at: 9, "the next spin plays")
    }

    func testOtherFormatsPlayThroughLibsndfile() throws {
        for codec in [Fixtures.Codec.wav, .flac] {
            let path = try Fixtures.tone(700, seconds: 6, rate: 44100, codec: codec)
            let (events, analysis) = try renderAround(brokenFile: path)
            XCTAssertFalse(events.contains { $0.kind == .error }, "\(codec): \(events.filter { $0.kind == .error })")
            assertPlays(analysis, 700, at: 5, "\(codec) plays")
        }
    }

    func testAnADTSFilePlays() throws {
        let path = try Fixtures.tone(700, seconds: 6, rate: 48000, codec: .aac)
        let (events, analysis) = try renderAround(brokenFile: path)
        XCTAssertFalse(events.contains { $0.kind == .error }, "\(events.filter { $0.kind == .error })")
        assertPlays(analysis, 700, at: 5, "ADTS plays")
    }

    func testBrokenSpinsAreDroppedByNameAndTheRestPlaysThroughTheCommand() throws {
        let good = try Fixtures.tone(700, seconds: 3, rate: 48000, codec: .mp3)
        let folder = Fixtures.temporaryDirectory("badjson")
        try FileManager.default.copyItem(atPath: good, toPath: folder + "/good.mp3")
        func spin(_ id: String, _ airtime: String, duration: String = "3000", url: String = "\"https://x.invalid/good.mp3\"") -> String {
            """
            {"id": "\(id)", "stationId": "s", "airtime": \(airtime), "startingVolume": 1, "fades": [],
             "futureField": {"nested": [1, 2]},
             "audioBlock": {"id": "b\(id)", "title": "Song \(id)", "artist": "Band", "durationMS": \(duration),
                            "endOfMessageMS": 2000, "downloadUrl": \(url)}}
            """
        }
        let json = "[" + [
            spin("ok-1", "\"2025-01-01T00:00:00.500Z\""),
            spin("no-airtime", "null"),
            spin("bad-date", "\"yesterday\""),
            spin("bad-duration", "\"2025-01-01T00:00:01Z\"", duration: "\"long\""),
            spin("no-url", "\"2025-01-01T00:00:01Z\"", url: "null"),
            spin("ok-2", "\"2025-01-01T00:00:03.5+00:00\""),
        ].joined(separator: ",") + "]"
        try json.write(toFile: folder + "/schedule.json", atomically: true, encoding: .utf8)

        let (decoded, dropped) = try Schedule.decode(Data(json.utf8))
        XCTAssertEqual(decoded.spins.map(\.id), ["ok-1", "ok-2"])
        XCTAssertEqual(dropped.map(\.description), [
            "dropped spin no-airtime: airtime: null where String is required",
            "dropped spin bad-date: airtime: not a date: \"yesterday\"",
            "dropped spin bad-duration: audioBlock.durationMS: expected Int",
            "dropped spin no-url: audioBlock.downloadUrl: missing",
        ])

        let output = try runPlayola(["render", "--schedule", folder + "/schedule.json", "--media", folder,
                                     "--from", "2025-01-01T00:00:00Z", "--duration", "7", "--out", folder + "/out.wav"])
        XCTAssertTrue(output.contains("2025-01-01T00:00:00.500Z start ok-1"), output)
        XCTAssertTrue(output.contains("2025-01-01T00:00:03.500Z start ok-2"), output)
        let wav = try WAVFile(path: folder + "/out.wav")
        let analysis = SignalAnalysis(samples: wav.left, rate: 48000)
        assertPlays(analysis, 700, at: 1.5, "the first good spin plays")
        assertPlays(analysis, 700, at: 5, "the second good spin plays")
    }

    func testAScheduleThatIsNotAnArrayIsOneClearError() {
        XCTAssertThrowsError(try Schedule.decode(Data("{\"spins\": []}".utf8))) { error in
            XCTAssertEqual(error as? ScheduleError, .notAnArray)
        }
        XCTAssertThrowsError(try Schedule.decode(Data("[{\"id\": ".utf8))) { error in
            guard case .notJSON? = error as? ScheduleError else { return XCTFail("\(error)") }
        }
    }
}
