import Foundation
import PlayolaEngine
import XCTest

/// Issue 3, "must be shown" 6, in virtual time: a device clock 100 ppm fast, and one 100 ppm slow,
/// against the wall clock, for seven days of a looping schedule. Each spin is placed after re-anchoring
/// on a measurement of the frame being heard (with the jitter a 1024-frame render block gives it).
final class ClockDriftTests: XCTestCase {
    func simulate(ppm: Double, reanchor: Bool) -> (worst: Double, spins: Int) {
        let rate = 48000.0
        let start = PlayolaDate.parse("2025-01-01T00:00:00Z")!
        var clock = ProgramClock(rate: 48000, frame: 0, heardAt: start)
        let deviceRate = rate * (1 + ppm * 1e-6)
        var generator = SystemRandomNumberGenerator()
        var worst = 0.0
        var spins = 0
        // A looping three-minute schedule: one spin placed 2 s before its airtime.
        for airtimeOffset in stride(from: 10.0, through: 7 * 86_400.0, by: 180) {
            let airtime = start.addingTimeInterval(airtimeOffset)
            let placedAt = airtimeOffset - 2
            if reanchor {
                let jitter = Double.random(in: -1024...1024, using: &generator)
                let heard = Int64((placedAt * deviceRate + jitter).rounded())
                clock.reanchor(frame: heard, heardAt: start.addingTimeInterval(placedAt))
            }
            let startFrame = clock.frame(at: airtime)
            let heardAt = Double(startFrame) / deviceRate
            worst = max(worst, abs(heardAt - airtimeOffset))
            spins += 1
        }
        return (worst, spins)
    }

    func testSevenDaysOfDriftStayWithinFiftyMillisecondsOfTheWallClock() {
        for ppm in [100.0, -100.0] {
            let (worst, spins) = simulate(ppm: ppm, reanchor: true)
            XCTAssertEqual(spins, 3360)
            XCTAssertLessThan(worst, 0.050, "\(ppm) ppm: a spin was heard \(worst * 1000) ms off its airtime")
            // Without re-anchoring the same device would be a minute off by the end of the week.
            XCTAssertGreaterThan(simulate(ppm: ppm, reanchor: false).worst, 50)
        }
    }

    func testAReanchorMovesOnlyWhatIsPlacedAfterIt() {
        let start = PlayolaDate.parse("2025-01-01T00:00:00Z")!
        var clock = ProgramClock(rate: 48000, frame: 0, heardAt: start)
        let placedBefore = clock.frame(at: start.addingTimeInterval(60))
        clock.reanchor(frame: 48000 * 30 + 480, heardAt: start.addingTimeInterval(30)) // device 10 ms ahead
        XCTAssertEqual(placedBefore, 48000 * 60)
        XCTAssertEqual(clock.frame(at: start.addingTimeInterval(60)), 48000 * 60 + 480)
        XCTAssertEqual(clock.date(atFrame: 48000 * 60 + 480).timeIntervalSince(start), 60, accuracy: 1e-6)
    }
}
