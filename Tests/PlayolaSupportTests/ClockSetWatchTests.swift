import Foundation
import Glibc
import PlayolaEngine
import Synchronization
import XCTest

/// The wall clock's watch against the real kernel: a set of CLOCK_REALTIME is said, each time, and nothing
/// else is. The clock is set to what it reads (a step of the microseconds between the two calls), which
/// needs CAP_SYS_TIME: without it the test is skipped.
final class ClockSetWatchTests: XCTestCase {
    func testEachSetOfTheWallClockIsSaidAndNothingElse() throws {
        let said = Atomic<Int>(0)
        let watch = try XCTUnwrap(ClockSetWatch { said.add(1, ordering: .relaxed) }, "timerfd with TFD_TIMER_CANCEL_ON_SET")
        let timers = openTimers()
        usleep(300_000)
        XCTAssertEqual(said.load(ordering: .relaxed), 0, "nothing said while the clock runs on")

        for time in 1...2 {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            guard clock_settime(CLOCK_REALTIME, &now) == 0 else {
                throw XCTSkip("setting the clock: \(String(cString: strerror(errno)))")
            }
            XCTAssertTrue(waitFor { said.load(ordering: .relaxed) == time }, "set \(time) said")
        }
        usleep(200_000)
        XCTAssertEqual(said.load(ordering: .relaxed), 2, "once each")
        XCTAssertEqual(openTimers(), timers, "the same timer all along")
        withExtendedLifetime(watch) {}
    }

    func testItsDescriptorIsClosedWithIt() throws {
        let before = openTimers()
        var watch = ClockSetWatch {}
        XCTAssertNotNil(watch)
        XCTAssertEqual(openTimers(), before + 1)
        watch = nil
        XCTAssertTrue(waitFor { self.openTimers() == before }, "closed once the watch is gone")
    }

    /// The process's timers that a set clock cancels: the watches' (Dispatch's own event loop opens timers of
    /// its own when first used, never with that flag).
    private func openTimers() -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fdinfo")) ?? []
        return names.filter { name in
            let info = (try? String(contentsOfFile: "/proc/self/fdinfo/" + name, encoding: .utf8)) ?? ""
            return info.contains("clockid: 0\n") && info.contains("settime flags: 03\n")
        }.count
    }

    private func waitFor(_ condition: () -> Bool) -> Bool {
        for _ in 0..<200 where !condition() { usleep(10_000) }
        return condition()
    }
}
