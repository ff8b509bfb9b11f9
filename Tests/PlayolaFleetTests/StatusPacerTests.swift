import XCTest
@testable import PlayolaFleet

/// Issue 32, item 3: the retained status at most once a second, the newest winning, nothing lost at the end
/// of a burst; on a scripted clock.
final class StatusPacerTests: XCTestCase {
    func testABurstIsOnePublicationAtOnceAndTheNewestAfterTheSecond() {
        var pacer = StatusPacer(interval: 1)
        XCTAssertEqual(pacer.offer("a", now: 100.0), "a", "the first goes at once")
        XCTAssertNil(pacer.offer("b", now: 100.1))
        XCTAssertNil(pacer.offer("c", now: 100.5))
        XCTAssertEqual(pacer.due, 101.0)
        XCTAssertNil(pacer.take(now: 100.99), "not before the second is up")
        XCTAssertEqual(pacer.take(now: 101.0), "c", "the newest, and only it")
        XCTAssertNil(pacer.due)
        XCTAssertNil(pacer.take(now: 105), "nothing waits: nothing again")
        XCTAssertEqual(pacer.offer("d", now: 105), "d", "after a quiet second, at once")
    }

    func testAStreamOfChangesIsPublishedOnceASecondWithTheLastOneLast() {
        var pacer = StatusPacer(interval: 1)
        var sent: [(Double, String)] = []
        // A change every 100 ms for 3 s, the loop looking at the pacer at each change and when it is due.
        var now = 0.0
        for index in 0..<30 {
            now = Double(index) / 10
            if let due = pacer.due, due <= now, let line = pacer.take(now: due) { sent.append((due, line)) }
            if let line = pacer.offer("s\(index)", now: now) { sent.append((now, line)) }
        }
        while let due = pacer.due, let line = pacer.take(now: due) { sent.append((due, line)) }
        XCTAssertEqual(sent.last?.1, "s29", "the end of the burst is not lost")
        for (earlier, later) in zip(sent, sent.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later.0 - earlier.0, 1 - 1e-9, "at most one a second: \(sent)")
        }
        XCTAssertEqual(sent.count, 4, "\(sent)")
    }

    func testAConnectionGetsTheNewestAtOnce() {
        var pacer = StatusPacer(interval: 1)
        XCTAssertNil(pacer.resend(now: 0), "nothing known yet")
        _ = pacer.offer("a", now: 10)
        _ = pacer.offer("b", now: 10.2)
        XCTAssertEqual(pacer.resend(now: 10.3), "b")
        XCTAssertNil(pacer.due, "what waited went with it")
    }
}
