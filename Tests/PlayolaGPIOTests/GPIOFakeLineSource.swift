import PlayolaTestSupport
import Glibc
import Synchronization
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaGPIO

/// Lines on a scripted clock: edges happen at the times the test gives, and time passes only as the code
/// under test waits, so a two-second hold takes no real time. Records every output.
final class FakeLineSource: GPIOLineSource, Sendable {
    struct Output: Equatable {
        var time: Double
        var line: LineRef
        var on: Bool
    }

    private struct State {
        var now: Double
        /// In time order; equal times in the order given.
        var script: [LineEvent] = []
        var levels: [LineRef: Bool]
        var outputs: [Output] = []
        var waits = 0
    }

    private let state: Mutex<State>
    /// Real seconds to sleep per wait once the script is used up, so a service thread on this source idles
    /// instead of spinning.
    private let idleSleep: Double

    init(levels: [LineRef: Bool] = [:], now: Double = 0, idleSleep: Double = 0) {
        state = Mutex(State(now: now, levels: levels))
        self.idleSleep = idleSleep
    }

    func script(_ edges: [LineEvent]) {
        state.withLock { Self.insert(edges, into: &$0.script) }
    }

    /// Edges at these delays from the clock's now, read under the same lock: for a thread already running on
    /// this clock.
    func scriptFromNow(_ edges: [(line: LineRef, level: Bool, delay: Double)]) {
        state.withLock { state in
            Self.insert(edges.map { LineEvent(line: $0.line, level: $0.level, time: state.now + $0.delay) }, into: &state.script)
        }
    }

    private static func insert(_ edges: [LineEvent], into script: inout [LineEvent]) {
        for edge in edges {
            script.insert(edge, at: script.firstIndex { $0.time > edge.time } ?? script.endIndex)
        }
    }

    var outputs: [Output] { state.withLock { $0.outputs } }
    /// How often the code under test waited for an edge.
    var waits: Int { state.withLock { $0.waits } }

    func nextEvent(timeout: Double) -> LineEvent? {
        let (event, idle) = state.withLock { state -> (LineEvent?, Bool) in
            state.waits += 1
            let deadline = state.now + timeout
            if let first = state.script.first, first.time <= deadline {
                state.script.removeFirst()
                state.now = max(state.now, first.time)
                state.levels[first.line] = first.level
                return (LineEvent(line: first.line, level: first.level, time: state.now), false)
            }
            state.now = deadline
            return (nil, state.script.isEmpty)
        }
        if idle && idleSleep > 0 { usleep(UInt32(idleSleep * 1e6)) }
        return event
    }

    func setOutput(_ line: LineRef, _ on: Bool) {
        state.withLock { $0.outputs.append(Output(time: $0.now, line: line, on: on)) }
    }

    func level(of line: LineRef) -> Bool? { state.withLock { $0.levels[line] } }

    func now() -> Double { state.withLock { $0.now } }
}

/// What the GPIO actions were asked to do, and when on the fake clock.
final class ActionRecorder: Sendable {
    let performed = Mutex<[(action: ButtonAction, time: Double)]>([])
    let volume = Mutex<[Int]>([])
    let ledState = Mutex(LEDState.idle)
    let networkTrouble = Mutex(false)

    var actions: [ButtonAction] { performed.withLock { $0.map(\.action) } }
    var volumeSteps: [Int] { volume.withLock { $0 } }

    func gpioActions(clock: @escaping @Sendable () -> Double) -> GPIOActions {
        GPIOActions(
            perform: { action in self.performed.withLock { $0.append((action, clock())) } },
            encoderStep: { points in self.volume.withLock { $0.append(points) } },
            ledState: { self.ledState.withLock { $0 } },
            networkTrouble: { self.networkTrouble.withLock { $0 } })
    }
}

/// Turns a GPIO loop on the fake clock, as the service thread would, until `end`.
func runLoop(config: GPIOConfig, led: ApplianceConfig.LED = .init(), source: FakeLineSource,
             recorder: ActionRecorder, until end: Double) {
    var loop = GPIOLoop(config: config, led: led, source: source, actions: recorder.gpioActions(clock: source.now))
    while source.now() < end { loop.turn(maximumWait: GPIOService.pollInterval) }
}

/// SplitMix64: the same bounce every run.
/// A contact moving to `level` at `start`, chattering with gaps of 0.2–5 ms for about 20 ms, and ending
/// at `level`.
func bounceTrain(_ line: LineRef, to level: Bool, at start: Double, using random: inout SeededGenerator) -> [LineEvent] {
    var time = start, current = level
    var edges = [LineEvent(line: line, level: level, time: start)]
    while true {
        let gap = Double.random(in: 0.0002...0.005, using: &random)
        if time + gap > start + 0.020 && current == level { break }
        time += gap
        current.toggle()
        edges.append(LineEvent(line: line, level: current, time: time))
    }
    return edges
}

extension GPIOConfig {
    static func buttons(_ buttons: [(ButtonAction, String)], activeLow: Bool = true) -> GPIOConfig {
        var config = GPIOConfig()
        config.buttons = buttons.map { .init(action: $0.0, lineRef: .name($0.1), line: 1) }
        config.activeLow = activeLow
        return config
    }
}
