import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 3, "must be shown" 1 and 2: a station from a real HTTP server on 127.0.0.1, rendered in virtual
/// time through the cache, and what each fault does to the requests and the audio.
final class StationRenderTests: XCTestCase {
    struct Rendered {
        var samples: CaptureSink
        var events: [PlayEvent]
        var notices: [String]
    }

    final class Collector: @unchecked Sendable {
        // @unchecked Sendable: appended from the render's callbacks, read after the render returns.
        let lock = NSLock()
        var events: [PlayEvent] = []
        var notices: [String] = []
        func add(_ event: PlayEvent) { lock.withLock { events.append(event) } }
        func add(_ notice: String) { lock.withLock { notices.append(notice) } }
    }

    func render(_ server: FakePlayola, station: String, seconds: Double, stallTimeout: Double = 15) async throws -> Rendered {
        let http = HTTPClient()
        let cache = try AudioCache(directory: Fixtures.temporaryDirectory("cache"), budgetBytes: 64 << 20)
        let collector = Collector()
        let downloader = AudioDownloader(http: http, cache: cache, backoff: (0.1, 1), stallTimeout: stallTimeout,
                                         onProblem: { collector.add($0) })
        var api = PlayolaAPI(baseURL: server.base + "/v1/", http: http)
        api.retryDelays = [0.05, 0.1, 0.2]
        let sink = CaptureSink()
        try await StationRenderer(api: api, downloader: downloader, stationID: station).render(
            from: ToneSchedule.origin, seconds: seconds, into: sink,
            report: { collector.add($0) }, notice: { collector.add($0) })
        return Rendered(samples: sink, events: collector.events, notices: collector.notices)
    }

    func shortTones() throws -> ToneSchedule {
        try ToneSchedule([
            ToneSpin(id: "one", frequency: 500, rate: 48000, codec: .mp3, airtime: 0.5, seconds: 6,
                     fades: [Fade(atMS: 4500, toVolume: 0.3)]),
            ToneSpin(id: "two", frequency: 800, rate: 44100, codec: .m4a, airtime: 5.5, seconds: 6),
            ToneSpin(id: "three", frequency: 1100, rate: 48000, codec: .m4a, airtime: 11, seconds: 4),
        ])
    }

    func testAStationFromTheAPIRendersExactlyAsItsScheduleDoesLocally() async throws {
        let server = try FakePlayola()
        let (tones, reference, _) = try StandardRender.get()
        _ = try tones.served(by: server, station: "tones")
        let rendered = try await render(server, station: "tones", seconds: 180)
        XCTAssertEqual(rendered.samples.samples.count, reference.samples.count)
        XCTAssertTrue(rendered.samples.samples == reference.samples, "the API render differs from the local render")
        XCTAssertEqual(rendered.events.filter { $0.kind == .start }.map(\.spin.id), ["A", "B", "C", "D", "E"])
        let requests = try server.requests()
        XCTAssertEqual(requests.filter { ($0["path"] as? String)?.contains("/schedule?includeRelatedTexts=true&lockedIn=true") == true }.count, 1)
        XCTAssertEqual(requests.filter { ($0["path"] as? String)?.hasPrefix("/files/") == true }.count, 5, "one download per file")
        XCTAssertTrue(requests.allSatisfy { ($0["headers"] as? [String: String])?["user-agent"]?.hasPrefix("playola-appliance/") == true })
    }

    func testAScheduleThatFailsWith500IsRetried() async throws {
        let server = try FakePlayola()
        _ = try shortTones().served(by: server, station: "s")
        try server.fault([["match": "/schedule", "action": ["status": 500], "times": 2]])
        let rendered = try await render(server, station: "s", seconds: 14)
        XCTAssertEqual(try server.requests(matching: "/schedule").map { $0["status"] as? Int }, [500, 500, 200])
        XCTAssertGreaterThan(SignalAnalysis(samples: rendered.samples.left, rate: 48000).amplitude(of: 800, around: 8 * 48000), 0.2)
    }

    func testAnUnknownStationIsOneRequestAndAClearError() async throws {
        let server = try FakePlayola()
        do {
            _ = try await render(server, station: "nowhere", seconds: 5)
            XCTFail("rendered a station that does not exist")
        } catch let error as StationRenderError {
            XCTAssertEqual("\(error)", "station nowhere not found (HTTP 404)")
        }
        XCTAssertEqual(try server.requests(matching: "/schedule").count, 1)
    }

    func testMalformedScheduleJSONIsNotRetried() async throws {
        let server = try FakePlayola()
        _ = try shortTones().served(by: server, station: "s")
        try server.fault([["match": "/schedule", "action": "garbage", "times": -1]])
        do {
            _ = try await render(server, station: "s", seconds: 5)
            XCTFail("rendered garbage")
        } catch let error as StationRenderError {
            XCTAssertTrue("\(error)".hasPrefix("station s: schedule is not valid JSON"), "\(error)")
        }
        XCTAssertEqual(try server.requests(matching: "/schedule").count, 1)
    }

    /// A body cut halfway, and a connection reset mid-download: the retry asks for the rest with a Range
    /// request, and the audio is the same as a clean download's.
    func testInterruptedDownloadsResumeWithARangeRequest() async throws {
        for action in ["cut_half", "reset_mid"] {
            let server = try FakePlayola()
            let tones = try shortTones()
            _ = try tones.served(by: server, station: "s")
            let clean = try tones.render(seconds: 14).0
            try server.fault([["match": "/files/two", "action": action, "times": 1]])
            let rendered = try await render(server, station: "s", seconds: 14)
            let downloads = try server.requests(matching: "/files/two")
            XCTAssertEqual(downloads.count, 2, action)
            let range = (downloads.last?["headers"] as? [String: String])?["range"] ?? ""
            XCTAssertTrue(range.hasPrefix("bytes=") && !range.hasPrefix("bytes=0-"), "\(action): second request range \(range)")
            XCTAssertEqual(downloads.last?["status"] as? Int, 206)
            XCTAssertTrue(rendered.samples.samples == clean.samples, "\(action): audio differs from a clean download's")
        }
    }

    func testAStalledDownloadTimesOutAndIsRetried() async throws {
        let server = try FakePlayola()
        let tones = try shortTones()
        _ = try tones.served(by: server, station: "s")
        try server.fault([["match": "/files/three", "action": "stall", "after_headers": true, "seconds": 30, "times": 1]])
        let began = Date()
        let rendered = try await render(server, station: "s", seconds: 14, stallTimeout: 1)
        XCTAssertLessThan(Date().timeIntervalSince(began), 20)
        XCTAssertEqual(try server.requests(matching: "/files/three").count, 2)
        XCTAssertTrue(rendered.notices.contains { $0.contains("timed out") }, "\(rendered.notices)")
        XCTAssertGreaterThan(SignalAnalysis(samples: rendered.samples.left, rate: 48000).amplitude(of: 1100, around: 13 * 48000), 0.2)
    }

    func testAFileThatIsNotAudioIsSilenceAndTheRestPlays() async throws {
        let server = try FakePlayola()
        _ = try shortTones().served(by: server, station: "s")
        try server.fault([["match": "/files/two", "action": "garbage", "times": -1]])
        let rendered = try await render(server, station: "s", seconds: 14)
        XCTAssertTrue(rendered.notices.contains { $0.contains("spin two will be silent") && $0.contains("not playable audio") }, "\(rendered.notices)")
        XCTAssertEqual(try server.requests(matching: "/files/two").count, 1, "not-audio is not retried")
        let analysis = SignalAnalysis(samples: rendered.samples.left, rate: 48000)
        XCTAssertGreaterThan(analysis.amplitude(of: 500, around: 2 * 48000), 0.2)
        XCTAssertLessThan(analysis.amplitude(of: 800, around: 8 * 48000), 0.001)
        XCTAssertGreaterThan(analysis.amplitude(of: 1100, around: 13 * 48000), 0.2)
    }
}
