import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 25: a redirect never takes an https request to plain http — not the API's POST (a listening
/// session, with its bearer token), not the schedule, not a download — and plain http is still upgraded to
/// https. Two fake APIs on loopback: one over TLS with a certificate made for the test (the only authority
/// the client trusts), and a plain one, which must hear nothing of the https requests.
final class RedirectTrustTests: XCTestCase {
    final class Reports: Sendable {
        let list = Mutex<[ListeningSessionReporter.Report]>([])
    }

    /// A schedule of one spin, so that a redirect that was followed would succeed.
    func serveSchedule(on server: FakePlayola) throws {
        try server.serve(station: "s", spins: [Spin(
            id: "x", stationID: "s", airtime: Date(), startingVolume: 1, fades: [],
            audioBlock: AudioBlock(id: "b", title: "x", artist: "t", durationMS: 1000, endOfMessageMS: 1000,
                                   downloadURL: server.fileURL("a.mp3")))])
    }

    func testHTTPSRequestsAreNotRedirectedToPlainHTTP() async throws {
        let plain = try FakePlayola()
        try plain.validTokens(["good"])
        try serveSchedule(on: plain)
        try plain.addFile(try Fixtures.tone(440, seconds: 1, rate: 48000, codec: .mp3), as: "a.mp3")
        let certificate = try FakePlayola.Certificate()
        let schedulePath = "/v1/stations/s/schedule?includeRelatedTexts=true&lockedIn=true"
        func redirect(_ match: String, _ code: Int, to location: String) -> [String: Any] {
            ["match": match, "times": -1, "action": ["type": "redirect", "code": code, "location": location]]
        }
        let secure = try FakePlayola(tls: certificate, faults: [
            // 307: the POST is to be repeated, body and all, at the new place.
            redirect("^/v1/listeningSessions$", 307, to: plain.base + "/v1/listeningSessions"),
            redirect("^/v1/stations/s/schedule", 302, to: plain.base + schedulePath),
            redirect("^/files/a.mp3$", 301, to: plain.fileURL("a.mp3")),
        ])
        try serveSchedule(on: secure)
        try secure.serve(station: "direct", spins: [])
        let api = PlayolaAPI(baseURL: secure.base, http: HTTPClient(certificateAuthorities: certificate.certificate))

        // The client does trust the server: a request that is not redirected gets its answer.
        do {
            _ = try await api.fetchSchedule(stationID: "direct")
            XCTFail("an empty schedule is an error")
        } catch {
            XCTAssertEqual(error, .emptySchedule("direct"), "the https server answered")
        }

        let reports = Reports()
        let sessions = ListeningSessionReporter(api: api, deviceID: "DEVICE-1", token: { "good" },
                                                onReport: { report in reports.list.withLock { $0.append(report) } })
        await sessions.playing(stationID: "s")
        let deadline = Date().addingTimeInterval(10)
        while reports.list.withLock({ $0.isEmpty }), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        await sessions.playing(stationID: nil)
        let session = secure.base + "/v1/listeningSessions"
        XCTAssertEqual(reports.list.withLock { $0.first?.outcome },
                       .failed("refused: \(session) redirected to \(plain.base)/v1/listeningSessions, which is not https; a redirect from https is followed only to https"))

        do {
            _ = try await api.fetchSchedule(stationID: "s")
            XCTFail("the schedule came over plain http")
        } catch {
            XCTAssertEqual(error, .network(.insecureRedirect(from: api.scheduleURL(stationID: "s"), to: plain.base + schedulePath)))
        }

        let cache = try AudioCache(directory: Fixtures.temporaryDirectory("redirect-cache"), budgetBytes: 16 << 20)
        let downloader = AudioDownloader(http: api.http, cache: cache, attempts: 1, onProblem: { _ in })
        let file = secure.fileURL("a.mp3")
        let downloaded = await downloader.file(for: file)
        XCTAssertEqual(downloaded, .failure(.http(file, .insecureRedirect(from: file, to: plain.fileURL("a.mp3")))))

        XCTAssertEqual(try plain.requests().map { "\($0["method"] ?? "") \($0["path"] ?? "")" }, [],
                       "an https request reached the plain server")
    }

    func testPlainHTTPIsStillUpgradedToHTTPS() async throws {
        let certificate = try FakePlayola.Certificate()
        let secure = try FakePlayola(tls: certificate, faults: [
            // Within https, a redirect is followed as before.
            ["match": "^/v1/stations/moved/schedule", "action": ["type": "redirect", "code": 301, "location": "/v1/stations/s/schedule"]],
        ])
        try serveSchedule(on: secure)
        let plain = try FakePlayola()
        try plain.fault([["match": "^/v1/stations/moved/schedule", "action": ["type": "redirect", "code": 301,
                                                                             "location": secure.base + "/v1/stations/moved/schedule"]]])
        let api = PlayolaAPI(baseURL: plain.base, http: HTTPClient(certificateAuthorities: certificate.certificate))
        let fetch = try await api.fetchSchedule(stationID: "moved")
        XCTAssertEqual(fetch.schedule.spins.map(\.id), ["x"])
        XCTAssertEqual(try plain.requests().compactMap { $0["status"] as? Int }, [301])
    }
}
