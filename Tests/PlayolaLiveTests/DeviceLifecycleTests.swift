import PlayolaEngine
import XCTest

/// The output device's lifecycle on a scripted clock: each test plays the render thread's part (what opened,
/// what was written and heard, when) and checks what the machine decides. 48 kHz: 0.1 s is 4800 frames.
final class DeviceLifecycleTests: XCTestCase {
    private let gone = AudioSinkError.deviceGone(device: "test-card", reason: "No such device")
    private let xrun = AudioSinkError.xrun(device: "test-card")

    private func machine(idleClose: Double? = nil) -> DeviceLifecycle {
        DeviceLifecycle(probeInterval: 2, idleClose: idleClose, confirmFrames: 4800)
    }

    /// Opens a device at `now` with `written` frames behind it and plays it until 0.1 s is heard.
    private func confirm(_ lifecycle: inout DeviceLifecycle, written: Int64 = 0, at now: Double) {
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
        lifecycle.opened(framesWritten: written, at: now)
        XCTAssertEqual(lifecycle.heard(written + 4799), .none, "not yet 0.1 s heard")
        XCTAssertEqual(lifecycle.heard(written + 4800), .post(.opened))
        XCTAssertEqual(lifecycle.state, .open)
    }

    func testItStartsWaitingAndSaysWaitingOnceForADeviceThatIsNotThere() {
        var lifecycle = machine()
        XCTAssertEqual(lifecycle.state, .waiting)
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: true), .open, "tries at once, even with nothing to play")
        XCTAssertEqual(lifecycle.openFailed(gone), .postAndWait(.waiting(gone), seconds: 2))
        XCTAssertEqual(lifecycle.state, .probing)
        for _ in 0..<3 {
            XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
            XCTAssertEqual(lifecycle.openFailed(gone), .postAndWait(.attemptFailed(gone, openFor: nil), seconds: 2),
                           "later failures are attempts, for the log")
        }
        confirm(&lifecycle, at: 10)
    }

    func testADeviceIsSaidBackOnlyOnceItHasPlayedATenthOfASecond() {
        var lifecycle = machine()
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
        lifecycle.opened(framesWritten: 96_000, at: 5)
        XCTAssertEqual(lifecycle.state, .confirming(openedAt: 5, heardBy: 100_800, afterLoss: false))
        XCTAssertEqual(lifecycle.wroteBlock(idle: false, at: 5.02), .none)
        XCTAssertEqual(lifecycle.heard(95_000), .none, "what the device still holds of before")
        XCTAssertEqual(lifecycle.heard(100_799), .none)
        XCTAssertEqual(lifecycle.heard(100_800), .post(.opened))
        XCTAssertEqual(lifecycle.state, .open)
        XCTAssertEqual(lifecycle.heard(200_000), .none, "said once")
    }

    func testAWriteErrorIsALossSaidOnceThroughAnOutageOfFailingAttempts() {
        var lifecycle = machine()
        confirm(&lifecycle, at: 0)
        XCTAssertEqual(lifecycle.writeFailed(gone, at: 3), .close(post: .lost(gone)))
        XCTAssertEqual(lifecycle.state, .lost)
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open, "probes at once after the loss")
        XCTAssertEqual(lifecycle.openFailed(gone), .postAndWait(.attemptFailed(gone, openFor: nil), seconds: 2))
        XCTAssertEqual(lifecycle.state, .lost)
        // A wedged card: it opens, takes no frames, and fails 62.5 ms later; then again. Neither is a new loss.
        for attempt in 0..<2 {
            let openedAt = 5 + Double(attempt) * 2
            XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
            lifecycle.opened(framesWritten: 144_000, at: openedAt)
            XCTAssertEqual(lifecycle.state, .confirming(openedAt: openedAt, heardBy: 148_800, afterLoss: true))
            XCTAssertEqual(lifecycle.heard(144_000), .none)
            XCTAssertEqual(lifecycle.writeFailed(xrun, at: openedAt + 0.0625), .close(post: .attemptFailed(xrun, openFor: 0.0625)))
            XCTAssertEqual(lifecycle.state, .lost)
        }
        // The card that comes back for good is said back, and its next failure is a loss again.
        confirm(&lifecycle, written: 300_000, at: 12)
        XCTAssertEqual(lifecycle.writeFailed(gone, at: 20), .close(post: .lost(gone)))
    }

    /// At start no loss was said: a device that opens and fails before 0.1 s is lost, said once.
    func testTheFirstDeviceFailingBeforeItIsConfirmedIsALoss() {
        var lifecycle = machine()
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
        lifecycle.opened(framesWritten: 0, at: 1)
        XCTAssertEqual(lifecycle.writeFailed(gone, at: 1.0625), .close(post: .lost(gone)))
        lifecycle.opened(framesWritten: 2048, at: 1.125)
        XCTAssertEqual(lifecycle.writeFailed(gone, at: 1.1875), .close(post: .attemptFailed(gone, openFor: 0.0625)))
    }

    func testNothingToPlayForIdleCloseParksTheDeviceUntilTheProgramFills() {
        var lifecycle = machine(idleClose: 1)
        confirm(&lifecycle, at: 0)
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 10), .none, "the idle time starts")
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 10.6), .none)
        XCTAssertEqual(lifecycle.wroteBlock(idle: false, at: 10.8), .none, "a spin: the idle time starts again")
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 11), .none)
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 12), .none, "exactly idleClose is not more than it")
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 12.01), .close(post: .closedIdle))
        XCTAssertEqual(lifecycle.state, .parked(afterLoss: false))
        for _ in 0..<3 {
            XCTAssertEqual(lifecycle.withoutDevice(programEmpty: true), .wait(seconds: 1), "parked while nothing plays")
        }
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open, "woken when the program fills")
        lifecycle.opened(framesWritten: 600_000, at: 30)
        XCTAssertEqual(lifecycle.state, .confirming(openedAt: 30, heardBy: 604_800, afterLoss: false))
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 30.5), .none, "the idle time starts afresh after parking")
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 31.4), .none)
    }

    /// A parked device that does not open again is probed for, each failure said for the log; a loss was
    /// never said, so the player is not told of one.
    func testAParkedDeviceThatFailsToReopenIsProbedFor() {
        var lifecycle = machine(idleClose: 1)
        confirm(&lifecycle, at: 0)
        _ = lifecycle.wroteBlock(idle: true, at: 1)
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 2.5), .close(post: .closedIdle))
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
        XCTAssertEqual(lifecycle.openFailed(gone), .postAndWait(.attemptFailed(gone, openFor: nil), seconds: 2))
        XCTAssertEqual(lifecycle.state, .probing)
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: true), .open, "probing is not parked: it tries again")
        lifecycle.opened(framesWritten: 0, at: 9)
        XCTAssertEqual(lifecycle.writeFailed(gone, at: 9.01), .close(post: .lost(gone)))
    }

    /// Parked in the middle of confirming a device after a loss: when it opens again and fails, that is one
    /// more failed attempt, not a second loss.
    func testALossSaidSurvivesParking() {
        var lifecycle = machine(idleClose: 1)
        confirm(&lifecycle, at: 0)
        _ = lifecycle.writeFailed(gone, at: 1)
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: true), .open)
        lifecycle.opened(framesWritten: 0, at: 2)
        _ = lifecycle.wroteBlock(idle: true, at: 2)
        XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: 3.5), .close(post: .closedIdle))
        XCTAssertEqual(lifecycle.state, .parked(afterLoss: true))
        XCTAssertEqual(lifecycle.withoutDevice(programEmpty: false), .open)
        lifecycle.opened(framesWritten: 0, at: 8)
        XCTAssertEqual(lifecycle.writeFailed(gone, at: 8.5), .close(post: .attemptFailed(gone, openFor: 0.5)))
    }

    func testWithoutIdleCloseTheDeviceStaysOpenOnSilence() {
        var lifecycle = machine()
        confirm(&lifecycle, at: 0)
        for second in stride(from: 1.0, to: 3600, by: 60) {
            XCTAssertEqual(lifecycle.wroteBlock(idle: true, at: second), .none)
        }
        XCTAssertEqual(lifecycle.state, .open)
    }
}
