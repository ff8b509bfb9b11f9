import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 18: a board that boots an hour wrong plays against the server's time as read from its `Date`
/// header, which has whole seconds only and arrives before the schedule is decoded and adopted.
final class ServerTimeTests: XCTestCase {
    func testTheServersTimeIsTheMiddleOfItsSecondCarriedForwardSinceTheAnswer() {
        let header = PlayolaDate.parse("2026-01-01T10:00:00Z")!
        let fetch = ScheduleFetch(schedule: Schedule(spins: []), dropped: [], serverDate: header, receivedAt: monotonicSeconds() - 2)
        let estimate = try! XCTUnwrap(fetch.serverNow()).timeIntervalSince(header)
        // 0.5 for the cut-off second, 2 since the answer, and the moment this test took.
        XCTAssertEqual(estimate, 2.5, accuracy: 0.05)
        XCTAssertNil(ScheduleFetch(schedule: Schedule(spins: []), dropped: [], serverDate: nil).serverNow())
    }

    func testTheCorrectedClockLandsWithinHalfASecondOfTheServers() async throws {
        let server = try FakePlayola()
        _ = try server.control("POST", "/_clock", ["offset": -3600])
        try server.serve(station: "s", spins: [Spin(
            id: "x", stationID: "s", airtime: Date(), startingVolume: 1, fades: [],
            audioBlock: AudioBlock(id: "b", title: "x", artist: "t", durationMS: 1000, endOfMessageMS: 1000,
                                   downloadURL: server.fileURL("x.mp3")))])
        let api = PlayolaAPI(baseURL: server.base, http: HTTPClient())
        let clock = ServerCorrectedClock()
        // Several fetches: each lands at another point of the server's second, and every one must agree.
        for _ in 0..<5 {
            let fetch = try await api.fetchSchedule(stationID: "s")
            try await Task.sleep(for: .milliseconds(150)) // the time a slow board spends before adopting it
            let fresh = ServerCorrectedClock()
            fresh.observe(serverDate: try XCTUnwrap(fetch.serverNow()))
            XCTAssertEqual(fresh.now().timeIntervalSince(Date().addingTimeInterval(-3600)), 0, accuracy: 0.55)
            clock.observe(serverDate: try XCTUnwrap(fetch.serverNow()))
            try await Task.sleep(for: .milliseconds(370))
        }
        XCTAssertEqual(clock.now().timeIntervalSince(Date().addingTimeInterval(-3600)), 0, accuracy: 0.55)
    }
}
