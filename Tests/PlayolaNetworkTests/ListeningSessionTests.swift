import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 3, "must be shown" 4 (and the 401 faults of 2): listening sessions against the fake API.
final class ListeningSessionTests: XCTestCase {
    final class Reports: Sendable {
        let list = Mutex<[ListeningSessionReporter.Report]>([])
        func add(_ report: ListeningSessionReporter.Report) { list.withLock { $0.append(report) } }
        var all: [ListeningSessionReporter.Report] { list.withLock { $0 } }
    }

    func reporter(_ server: FakePlayola, interval: Double = 0.3, token: @escaping @Sendable () -> String?, reports: Reports = Reports())
        -> ListeningSessionReporter {
        ListeningSessionReporter(api: PlayolaAPI(baseURL: server.base, http: HTTPClient()), deviceID: "DEVICE-1",
                                 interval: interval, token: token, onReport: { reports.add($0) })
    }

    func sessionRequests(_ server: FakePlayola) throws -> [(path: String, t: Double, station: String?, auth: String?, status: Int?)] {
        try server.requests(matching: "/v1/listeningSessions").map {
            ($0["path"] as! String, $0["t"] as! Double, ($0["body"] as? [String: Any])?["stationId"] as? String,
             ($0["headers"] as? [String: String])?["authorization"], $0["status"] as? Int)
        }
    }

    func testHeartbeatsEveryIntervalMeasuredFromEachPostThenOneEnd() async throws {
        let server = try FakePlayola()
        try server.validTokens(["good"])
        let sessions = reporter(server, token: { "good" })
        await sessions.playing(stationID: "station-a")
        try await Task.sleep(for: .seconds(1.35))
        await sessions.playing(stationID: nil)
        await sessions.flush()
        let requests = try sessionRequests(server)
        let beats = requests.filter { $0.path == "/v1/listeningSessions" }
        XCTAssertEqual(beats.count, 5, "\(requests.map(\.path))")
        for (a, b) in zip(beats, beats.dropFirst()) { XCTAssertEqual(b.t - a.t, 0.3, accuracy: 0.08) }
        XCTAssertEqual(requests.last?.path, "/v1/listeningSessions/end")
        XCTAssertTrue(beats.allSatisfy { $0.station == "station-a" && $0.auth == "Bearer good" && $0.status == 200 })
        let bodies = try server.requests(matching: "/v1/listeningSessions").compactMap { $0["body"] as? [String: String] }
        XCTAssertEqual(bodies.first, ["deviceId": "DEVICE-1", "stationId": "station-a"])
        XCTAssertEqual(bodies.last, ["deviceId": "DEVICE-1"])
    }

    func testStopPlayAndAStationSwitchKeepTheOrder() async throws {
        let server = try FakePlayola()
        try server.validTokens(["good"])
        let sessions = reporter(server, interval: 0.2, token: { "good" })
        await sessions.playing(stationID: "a")
        try await Task.sleep(for: .seconds(0.1))
        await sessions.playing(stationID: nil)
        await sessions.playing(stationID: "b")
        try await Task.sleep(for: .seconds(0.1))
        await sessions.playing(stationID: "c") // a switch: one device session, no /end in between
        try await Task.sleep(for: .seconds(0.3))
        await sessions.playing(stationID: nil)
        await sessions.flush()
        let trail = try sessionRequests(server).map { $0.path.hasSuffix("/end") ? "end" : $0.station! }
        XCTAssertEqual(trail.first, "a")
        XCTAssertEqual(trail[1], "end")
        let afterFirstEnd = Array(trail.dropFirst(2))
        XCTAssertEqual(afterFirstEnd.first, "b")
        XCTAssertEqual(afterFirstEnd.last, "end")
        XCTAssertEqual(afterFirstEnd.filter { $0 == "end" }.count, 1, "\(trail)")
        XCTAssertTrue(afterFirstEnd.contains("c"))
        XCTAssertEqual(afterFirstEnd.drop { $0 != "c" }.filter { $0 == "b" }, [], "no heartbeat for b after the switch: \(trail)")
    }

    func testNoTokenNoReportsAndNoError() async throws {
        let server = try FakePlayola()
        let sessions = reporter(server, token: { nil })
        await sessions.playing(stationID: "a")
        try await Task.sleep(for: .seconds(0.5))
        await sessions.playing(stationID: nil)
        await sessions.flush()
        XCTAssertEqual(try sessionRequests(server).count, 0)
    }

    func testA401IsFollowedByATokenRefreshAndOneRetry() async throws {
        let server = try FakePlayola()
        try server.validTokens(["fresh"])
        let reads = Atomic<Int>(0)
        let reports = Reports()
        // The token source: a file that was stale for the first request (read once to decide whether to
        // report at all, once to build the request) and has been rewritten since.
        let sessions = reporter(server, interval: 10, token: { reads.add(1, ordering: .relaxed).newValue <= 2 ? "stale" : "fresh" }, reports: reports)
        await sessions.playing(stationID: "a")
        try await Task.sleep(for: .seconds(0.4))
        await sessions.flush()
        let requests = try sessionRequests(server)
        XCTAssertEqual(requests.map(\.auth), ["Bearer stale", "Bearer fresh"])
        XCTAssertEqual(requests.map(\.status), [401, 200])
        XCTAssertEqual(reports.all.first?.outcome, ListeningSessionReporter.Outcome.ok)
    }

    func testAPersistent401GivesUpAfterThreeRefreshes() async throws {
        let server = try FakePlayola()
        let reports = Reports()
        let sessions = reporter(server, interval: 10, token: { "revoked" }, reports: reports)
        await sessions.playing(stationID: "a")
        try await Task.sleep(for: .seconds(0.5))
        await sessions.playing(stationID: nil)
        await sessions.flush()
        let requests = try sessionRequests(server)
        XCTAssertEqual(requests.map(\.status), [401, 401, 401, 401], "4 requests, 3 refreshes, no /end for a session that never started")
        XCTAssertEqual(reports.all.first?.outcome, ListeningSessionReporter.Outcome.failed("unauthorized (token refresh limit reached)"))
    }
}
