import XCTest
import PlayolaTestSupport
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaGPIO

final class GPIOButtonTests: XCTestCase {
    private let line = LineRef.name("GPIO27")

    /// 200 presses, each with chatter on the way down and on the way up: one action each.
    func testBounceTrainsGiveExactlyOnePressEach() {
        var random = SeededGenerator(seed: 42)
        let source = FakeLineSource(levels: [line: true])
        for press in 0..<200 {
            let start = 1.0 + Double(press)
            source.script(bounceTrain(line, to: false, at: start, using: &random))
            source.script(bounceTrain(line, to: true, at: start + 0.2, using: &random))
        }
        let recorder = ActionRecorder()
        runLoop(config: .buttons([(.stop, "GPIO27")]), source: source, recorder: recorder, until: 202)
        XCTAssertEqual(recorder.actions, Array(repeating: .stop, count: 200))
    }

    func testGesturesOfABouncingTap() {
        var random = SeededGenerator(seed: 7)
        var logic = ButtonLogic(pressed: false, at: 0, timing: ButtonTiming(), repeats: false)
        var gestures: [ButtonLogic.Gesture] = []
        for edge in bounceTrain(line, to: false, at: 1, using: &random) + bounceTrain(line, to: true, at: 1.3, using: &random) {
            gestures += logic.contact(!edge.level, at: edge.time)
        }
        gestures += logic.advance(to: 3)
        XCTAssertEqual(gestures, [.press, .shortPress])
    }

    func testAHoldIsOneLongPressAndNoShortPress() {
        var logic = ButtonLogic(pressed: false, at: 0, timing: ButtonTiming(), repeats: false)
        var gestures = logic.contact(true, at: 1)
        gestures += logic.advance(to: 1.999)
        XCTAssertEqual(gestures, [.press])
        gestures += logic.advance(to: 2.0)
        XCTAssertEqual(gestures, [.press, .longPress], "the long press comes while the button is still held")
        gestures += logic.contact(false, at: 2.2)
        gestures += logic.advance(to: 5)
        XCTAssertEqual(gestures, [.press, .longPress])
    }

    /// shutdown acts only on a long press, stop only on a short one.
    func testLongAndShortPressesAreBoundSeparately() {
        let config = GPIOConfig.buttons([(.shutdown, "GPIO26"), (.stop, "GPIO27")])
        let shutdown = LineRef.name("GPIO26")
        let source = FakeLineSource(levels: [shutdown: true, line: true])
        source.script([
            // 1.2 s holds: shutdown at exactly 1 s into its hold; stop nothing.
            .init(line: shutdown, level: false, time: 1), .init(line: shutdown, level: true, time: 2.2),
            .init(line: line, level: false, time: 3), .init(line: line, level: true, time: 4.2),
            // Taps: stop; shutdown nothing.
            .init(line: shutdown, level: false, time: 5), .init(line: shutdown, level: true, time: 5.3),
            .init(line: line, level: false, time: 6), .init(line: line, level: true, time: 6.3),
        ])
        let recorder = ActionRecorder()
        runLoop(config: config, source: source, recorder: recorder, until: 8)
        let performed = recorder.performed.withLock { $0 }
        XCTAssertEqual(performed.map(\.action), [.shutdown, .stop])
        XCTAssertEqual(performed.first?.time ?? 0, 2.0, accuracy: 1e-9)
        XCTAssertEqual(performed.last?.time ?? 0, 6.33, accuracy: 1e-9, "a short press acts once its release is certain")
    }

    func testBothPolarities() {
        var random = SeededGenerator(seed: 3)
        for activeLow in [true, false] {
            // Active-low: idle high on the pull-up, a press pulls to ground. Active-high: the reverse.
            let idle = activeLow, pressed = !activeLow
            let source = FakeLineSource(levels: [line: idle])
            source.script(bounceTrain(line, to: pressed, at: 1, using: &random))
            source.script(bounceTrain(line, to: idle, at: 1.2, using: &random))
            let recorder = ActionRecorder()
            runLoop(config: .buttons([(.nextStation, "GPIO27")], activeLow: activeLow), source: source,
                    recorder: recorder, until: 3)
            XCTAssertEqual(recorder.actions, [.nextStation], "active_low = \(activeLow)")
            let time = recorder.performed.withLock { $0.first?.time } ?? 0
            XCTAssertGreaterThan(time, 1.2, "acts on the release, active_low = \(activeLow)")
        }
    }

    /// A button already held when the service starts is not pressed by us: no action when it is let go.
    func testAHoldFromBeforeTheStartIsIgnored() {
        let source = FakeLineSource(levels: [line: false])
        source.script([.init(line: line, level: true, time: 0.5)])
        let recorder = ActionRecorder()
        runLoop(config: .buttons([(.stop, "GPIO27")]), source: source, recorder: recorder, until: 3)
        XCTAssertEqual(recorder.actions, [])
    }

    /// A press right away, the first repeat at 0.5 s, then every 0.15 s: 0, 0.5, 0.65, …, 1.85 in a 2 s hold.
    func testVolumeRepeatsWhileHeld() {
        var random = SeededGenerator(seed: 11)
        let up = LineRef.name("GPIO6"), down = LineRef.name("GPIO13")
        let source = FakeLineSource(levels: [up: true, down: true])
        source.script([.init(line: up, level: false, time: 1), .init(line: up, level: true, time: 3)])
        source.script(bounceTrain(down, to: false, at: 5, using: &random))
        source.script(bounceTrain(down, to: true, at: 5.3, using: &random))
        let recorder = ActionRecorder()
        runLoop(config: .buttons([(.volumeUp, "GPIO6"), (.volumeDown, "GPIO13")]), source: source,
                recorder: recorder, until: 7)
        let performed = recorder.performed.withLock { $0 }
        XCTAssertEqual(performed.map(\.action), Array(repeating: .volumeUp, count: 11) + [.volumeDown])
        XCTAssertEqual(performed[0].time, 1.03, accuracy: 1e-9)
        for (index, step) in performed[1..<11].enumerated() {
            XCTAssertEqual(step.time, 1.5 + Double(index) * 0.15, accuracy: 1e-9)
        }
    }
}
