import PlayolaEngine
import XCTest

/// The one backoff the downloader, its memory of bad files, stream reconnects and the schedule's retries share.
final class BackoffTests: XCTestCase {
    func testDoublesFromTheFirstWaitToTheCap() {
        XCTAssertEqual((1...7).map { Backoff(first: 1, cap: 30).delay(attempt: $0) }, [1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual((1...6).map { Backoff(first: 5, cap: 60).delay(attempt: $0) }, [5, 10, 20, 40, 60, 60])
        XCTAssertEqual(Backoff(first: 600, cap: 6 * 3600).delay(attempt: 7), 6 * 3600)
    }

    /// An attempt count from a long outage (or a bug) neither traps nor overflows: the shift stops at 2^20.
    func testAnyAttemptCountIsSafe() {
        XCTAssertEqual(Backoff(first: 1, cap: 30).delay(attempt: 0), 1)
        XCTAssertEqual(Backoff(first: 1, cap: 30).delay(attempt: -5), 1)
        XCTAssertEqual(Backoff(first: 1, cap: 30).delay(attempt: .max), 30)
        XCTAssertEqual(Backoff(first: 1e-6, cap: 1e9).delay(attempt: 1000), 1e-6 * Double(1 << 20))
    }
}
