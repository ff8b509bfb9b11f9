import FoundationEssentials
import PlayolaEngine
import XCTest

/// The schedule model without audio: dates, fades, envelopes, now-playing (reference §8).
final class ModelTests: XCTestCase {
    func testDatesWithAndWithoutFractionsAndOffsets() throws {
        let instant = try XCTUnwrap(PlayolaDate.parse("2023-01-15T10:30:45.123Z"))
        XCTAssertEqual(instant.timeIntervalSince1970, 1_673_778_645.123, accuracy: 0.0005)
        XCTAssertEqual(PlayolaDate.parse("2023-01-15T10:30:45.123+0000"), instant)
        XCTAssertEqual(PlayolaDate.parse("2023-01-15T12:30:45.123+02:00"), instant)
        XCTAssertEqual(PlayolaDate.parse("2023-01-15T12:30:45.123+0200"), instant)
        XCTAssertEqual(PlayolaDate.parse("2023-01-15T05:30:45.123-0500"), instant)
        XCTAssertEqual(PlayolaDate.parse("2023-01-15T10:30:45Z")?.timeIntervalSince1970, 1_673_778_645)
        XCTAssertEqual(PlayolaDate.format(instant), "2023-01-15T10:30:45.123Z")
        XCTAssertEqual(PlayolaDate.format(try XCTUnwrap(PlayolaDate.parse("2023-01-15T10:30:45.123+0200"))), "2023-01-15T08:30:45.123Z")
        for bad in ["2023-01-15", "2023-01-15T10:30:45", "2023-13-15T10:30:45Z", "2023-01-15T10:30:45.Z", "yesterday", ""] {
            XCTAssertNil(PlayolaDate.parse(bad), bad)
        }
    }

    func testFadesAreSortedAndUnknownKeysIgnored() throws {
        let json = """
        [{"id": "s1", "stationId": "st", "airtime": "2025-03-21T03:23:42.461Z", "startingVolume": 1,
          "fades": [{"atMS": 229365, "toVolume": 0.3}, {"atMS": 238324, "toVolume": 0}, {"atMS": 1000, "toVolume": 1}],
          "overlapRole": "background", "relatedTexts": [{"title": "t", "body": "b"}],
          "audioBlock": {"id": "b", "title": "Too Sweet", "artist": "Hozier", "durationMS": 251424, "endOfMessageMS": 240000,
                         "downloadUrl": "https://x/y.m4a", "attributes": {"sex": "Male"}, "youTubeId": null}}]
        """
        let (schedule, dropped) = try Schedule.decode(Data(json.utf8))
        XCTAssertEqual(dropped, [])
        XCTAssertEqual(schedule.spins[0].fades.map(\.atMS), [1000, 229365, 238324])
        XCTAssertEqual(schedule.spins[0].endtime.timeIntervalSince(schedule.spins[0].airtime), 240)
    }

    /// Reference §8.22: (1.0 start, 5000→0.2, 10000→1.0) and pre-empted (5000→0.2, 5500→1.0).
    func testEnvelopeRampsFromTheLevelReached() {
        let envelope = GainEnvelope(startingVolume: 1, fades: [Fade(atMS: 5000, toVolume: 0.2), Fade(atMS: 10000, toVolume: 1)])
        for (ms, gain) in [(0.0, 1.0), (4999, 1), (5000, 1), (5750, 0.6), (6500, 0.2), (9000, 0.2), (10750, 0.6), (11500, 1), (20000, 1)] {
            XCTAssertEqual(Double(envelope.gain(atMS: ms)), gain, accuracy: 1e-5, "at \(ms)")
        }
        let preempted = GainEnvelope(startingVolume: 1, fades: [Fade(atMS: 5500, toVolume: 1), Fade(atMS: 5000, toVolume: 0.2)])
        XCTAssertEqual(Double(preempted.gain(atMS: 5500)), 0.7333, accuracy: 1e-4)
        XCTAssertEqual(Double(preempted.gain(atMS: 5499)), Double(preempted.gain(atMS: 5500)), accuracy: 1e-3)
        XCTAssertEqual(Double(preempted.gain(atMS: 6400)), 0.8933, accuracy: 1e-4)
        XCTAssertEqual(Double(preempted.gain(atMS: 7000)), 1, accuracy: 1e-5)
        XCTAssertEqual(GainEnvelope(startingVolume: 0.4, fades: []).gain(atMS: 99999), 0.4)
    }

    /// Reference §8.13: of overlapping spins the later-starting one is "now playing".
    func testNowPlayingPrefersTheLaterStartingSpin() {
        let now = PlayolaDate.parse("2025-01-01T12:00:00Z")!
        func spin(_ id: String, _ start: Double, _ seconds: Int) -> Spin {
            Spin(id: id, stationID: "s", airtime: now.addingTimeInterval(start), startingVolume: 1, fades: [],
                 audioBlock: AudioBlock(id: id, title: id, artist: "", durationMS: seconds * 1000,
                                        endOfMessageMS: seconds * 1000, downloadURL: "u"))
        }
        let schedule = Schedule(spins: [spin("later", -10, 40), spin("earlier", -20, 60)])
        XCTAssertEqual(schedule.nowPlaying(at: now)?.id, "later")
        XCTAssertEqual(schedule.current(at: now).map(\.id), ["earlier", "later"])
        XCTAssertNil(schedule.nowPlaying(at: now.addingTimeInterval(100)))
        XCTAssertEqual(spin("x", 0, 10).withOffset(-60).airtime, now.addingTimeInterval(-60))
    }

    func testMediaDirectoryDecodesTheLastPathComponent() {
        let media = MediaDirectory(path: "/m")
        XCTAssertEqual(media.file(for: "https://b.s3.amazonaws.com/01%20Sittin%20On%20a%20Porch.m4a"), "/m/01 Sittin On a Porch.m4a")
        XCTAssertEqual(media.file(for: "https://b/x/DJ%3ABRI%20SKIT%202.m4a?sig=1"), "/m/DJ:BRI SKIT 2.m4a")
    }
}
