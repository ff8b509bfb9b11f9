import XCTest
import PlayolaTestSupport
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaGPIO

final class GPIOEncoderTests: XCTestCase {
    private let a = LineRef.name("GPIO20"), b = LineRef.name("GPIO21")

    private func config(_ action: GPIOConfig.EncoderAction = .volume) -> GPIOConfig {
        var config = GPIOConfig()
        config.encoder = .init(a: a, b: b, line: 1)
        config.encoderAction = action
        return config
    }

    /// Physical edges (active-low: a closed contact reads low) for `detents` detents, one transition every
    /// `step` seconds, each edge of A preceded by a burst of chatter.
    private func turn(_ detents: Int, clockwise: Bool, from start: Double, step: Double,
                      random: inout SeededGenerator) -> [LineEvent] {
        // Closed contacts (A, B) through one detent, clockwise: A closes first.
        let cycle = clockwise ? [(true, false), (true, true), (false, true), (false, false)]
                              : [(false, true), (true, true), (true, false), (false, false)]
        var edges: [LineEvent] = []
        var time = start, closedA = false
        for _ in 0..<detents {
            for (nextA, nextB) in cycle {
                time += step
                if nextA != closedA {
                    let before = !closedA, after = !nextA
                    var chatterTime = time
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        edges.append(.init(line: a, level: after, time: chatterTime))
                        chatterTime += Double.random(in: 0.00002...0.0001, using: &random)
                        edges.append(.init(line: a, level: before, time: chatterTime))
                        chatterTime += Double.random(in: 0.00002...0.0001, using: &random)
                    }
                    edges.append(.init(line: a, level: after, time: chatterTime))
                    closedA = nextA
                } else {
                    edges.append(.init(line: b, level: !nextB, time: time))
                }
            }
        }
        return edges
    }

    /// What the loop makes of a turn one way at 1 s and then `back` detents the other way at 2 s, with seeded chatter.
    private func record(_ detents: Int, clockwise: Bool, then back: Int, step: Double, seed: UInt64,
                        _ action: GPIOConfig.EncoderAction = .volume) -> ActionRecorder {
        var random = SeededGenerator(seed: seed)
        let source = FakeLineSource(levels: [a: true, b: true])
        source.script(turn(detents, clockwise: clockwise, from: 1, step: step, random: &random))
        source.script(turn(back, clockwise: !clockwise, from: 2, step: step, random: &random))
        let recorder = ActionRecorder()
        runLoop(config: config(action), source: source, recorder: recorder, until: 3)
        return recorder
    }

    func testFastTurnsCountEveryDetentAndNothingElse() {
        let recorder = record(40, clockwise: true, then: 40, step: 0.002, seed: 5)
        XCTAssertEqual(recorder.volumeSteps, Array(repeating: 5, count: 40) + Array(repeating: -5, count: 40))
    }

    func testStationMode() {
        let recorder = record(2, clockwise: true, then: 1, step: 0.01, seed: 9, .station)
        XCTAssertEqual(recorder.actions, [.nextStation, .nextStation, .previousStation])
        XCTAssertEqual(recorder.volumeSteps, [])
    }

    func testNoPhantomSteps() {
        var decoder = QuadratureDecoder(a: false, b: false)
        var steps: [Int] = []
        // Chatter on A at rest; half a detent and back; B chattering mid-detent.
        for (closedA, closedB) in [(true, false), (false, false), (true, false), (false, false),
                                   (true, false), (true, true), (true, false), (false, false),
                                   (true, false), (true, true), (true, false), (true, true), (true, false), (false, false)] {
            steps.append(decoder.update(a: closedA, b: closedB))
        }
        XCTAssertEqual(steps.filter { $0 != 0 }, [])
    }

    func testAMissedTransitionStillCountsTheDetent() {
        var decoder = QuadratureDecoder(a: false, b: false)
        // Clockwise with 11 → 01 lost: A and B appear to change together.
        let steps = [(true, false), (true, true), (false, false)].map { decoder.update(a: $0.0, b: $0.1) }
        XCTAssertEqual(steps, [0, 0, 1])
    }

    func testSwitchStopsAndStarts() {
        var config = config()
        let push = LineRef.name("GPIO16")
        config.encoderSwitch = push
        let source = FakeLineSource(levels: [a: true, b: true, push: true])
        source.script([.init(line: push, level: false, time: 1), .init(line: push, level: true, time: 1.2)])
        let recorder = ActionRecorder()
        runLoop(config: config, source: source, recorder: recorder, until: 2)
        XCTAssertEqual(recorder.actions, [.stop])
    }
}
