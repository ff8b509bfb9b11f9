import PlayolaEngine
import PlayolaConfig

/// A level change on an input line.
struct LineEvent: Sendable, Equatable {
    /// As the config names it.
    var line: LineRef
    /// The physical level after the change: true is high. Polarity (`active_low`) is the controls' business,
    /// so every source reports the same thing for the same wiring.
    var level: Bool
    /// Seconds on the source's clock (`now()`).
    var time: Double
}

/// The seam between the button/encoder/LED logic and the hardware: libgpiod on a real board, a named pipe
/// for end-to-end tests of the service, a script in unit tests. Used from one thread only.
protocol GPIOLineSource {
    /// The next edge, waiting at most `timeout` seconds; nil when none came in time.
    func nextEvent(timeout: Double) -> LineEvent?
    /// Lights (true) or darkens an output line.
    func setOutput(_ line: LineRef, _ on: Bool)
    /// The physical level of an input now, nil when unknown: a button held or an encoder between detents
    /// at start must not look like a change.
    func level(of line: LineRef) -> Bool?
    /// The clock of `LineEvent.time` and of the timeouts.
    func now() -> Double
}

extension GPIOLineSource {
    func now() -> Double { monotonicSeconds() }
}
