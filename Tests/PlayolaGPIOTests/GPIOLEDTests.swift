import XCTest
import PlayolaTestSupport
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaGPIO

final class GPIOLEDTests: XCTestCase {
    /// (period, lit seconds) per state; nil period: steady at `lit > 0`.
    private let expected: [LEDState: (period: Double?, lit: Double)] = [
        .playing: (nil, 1), .idle: (nil, 0), .loading: (0.5, 0.25), .waitingForDevice: (2, 1),
        .paused: (2, 0.1), .error: (0.125, 0.0625),
    ]

    func testLevelsOverTime() {
        for state in LEDState.allCases {
            let pattern = LEDPattern(state), (period, lit) = expected[state]!
            // Sampled between the millisecond boundaries the patterns change on.
            for millisecond in 0..<4000 {
                let time = (Double(millisecond) + 0.5) / 1000
                let on = period.map { time.truncatingRemainder(dividingBy: $0) < lit } ?? (lit > 0)
                XCTAssertEqual(pattern.level(at: time), on, "\(state) at \(time)")
            }
        }
    }

    func testRisesInFourSeconds() {
        // Lit from the start counts as a rise.
        let rises: [LEDState: Int] = [.playing: 1, .idle: 0, .loading: 8, .waitingForDevice: 2, .paused: 2, .error: 32]
        for state in LEDState.allCases {
            let pattern = LEDPattern(state)
            let count = (1..<4000).filter { !pattern.level(at: Double($0 - 1) / 1000) && pattern.level(at: Double($0) / 1000) }.count
                + (pattern.level(at: 0) ? 1 : 0)
            XCTAssertEqual(count, rises[state], "\(state)")
        }
    }

    func testNextChange() {
        var random = SeededGenerator(seed: 1)
        XCTAssertNil(LEDPattern(.playing).nextChange(after: 3))
        XCTAssertNil(LEDPattern(.idle).nextChange(after: 3))
        XCTAssertEqual(LEDPattern(.loading).nextChange(after: 0), 0.25)
        XCTAssertEqual(LEDPattern(.loading).nextChange(after: 0.25), 0.5)
        XCTAssertEqual(LEDPattern(.paused).nextChange(after: 0.05), 0.1)
        XCTAssertEqual(LEDPattern(.paused).nextChange(after: 0.1), 2)
        for state in LEDState.allCases where expected[state]!.period != nil {
            let pattern = LEDPattern(state)
            for _ in 0..<1000 {
                let time = Double.random(in: 0..<100, using: &random)
                let next = pattern.nextChange(after: time)!
                let level = pattern.level(at: time)
                XCTAssertGreaterThan(next, time)
                XCTAssertNotEqual(pattern.level(at: next), level, "\(state): changes at \(next)")
                for fraction in [0.25, 0.5, 0.75, 0.999] {
                    XCTAssertEqual(pattern.level(at: time + (next - time) * fraction), level, "\(state): steady before \(next)")
                }
            }
        }
    }

    /// The loop wakes for exactly the LED's changes, not on a tick of its own.
    func testDriverWritesChangesAtTheirTimes() {
        let status = LineRef.name("GPIO23"), network = LineRef.name("GPIO24")
        let source = FakeLineSource()
        let recorder = ActionRecorder()
        recorder.ledState.withLock { $0 = .waitingForDevice }
        runLoop(config: GPIOConfig(), led: .init(status: status, network: network), source: source,
                recorder: recorder, until: 4.1)
        let writes = source.outputs.filter { $0.line == status }
        XCTAssertEqual(writes.map(\.on), [true, false, true, false, true])
        for (index, write) in writes.enumerated() { XCTAssertEqual(write.time, Double(index), accuracy: 1e-9) }
        XCTAssertEqual(source.outputs.filter { $0.line == network }.map(\.on), [false])
    }

    func testStateChangesAndNetworkTrouble() {
        let status = LineRef.name("GPIO23"), network = LineRef.name("GPIO24")
        let source = FakeLineSource()
        let recorder = ActionRecorder()
        var loop = GPIOLoop(config: GPIOConfig(), led: .init(status: status, network: network), source: source,
                            actions: recorder.gpioActions(clock: source.now))
        func run(until end: Double) { while source.now() < end { loop.turn(maximumWait: GPIOService.pollInterval) } }
        recorder.ledState.withLock { $0 = .playing }
        run(until: 10)
        recorder.ledState.withLock { $0 = .error }
        recorder.networkTrouble.withLock { $0 = true }
        run(until: 11.03)
        recorder.ledState.withLock { $0 = .idle }
        recorder.networkTrouble.withLock { $0 = false }
        run(until: 12)
        let statusWrites = source.outputs.filter { $0.line == status }.map(\.on)
        XCTAssertEqual(statusWrites.first, true)
        XCTAssertEqual(statusWrites.dropFirst().count, 16 + 1, "8 Hz from 10 to 11 s, then off")
        XCTAssertEqual(statusWrites.last, false)
        XCTAssertEqual(source.outputs.filter { $0.line == network }.map(\.on), [false, true, false])
        // A steady LED costs a wake per poll interval and nothing more.
        XCTAssertLessThan(source.waits, 10 * 4 + 20 + 4 + 10)
    }
}
