/// What the status LED shows.
package enum LEDState: Sendable, Equatable, CaseIterable {
    case playing, loading, waitingForDevice, idle, paused, error
}

/// An LED's level over time, as a pure function of the seconds since the pattern began, so the driver can
/// sleep until exactly the next change instead of ticking.
enum LEDPattern: Sendable, Equatable {
    case steady(Bool)
    /// Lit for `lit` seconds at the start of every `period`.
    case cycle(period: Double, lit: Double)

    static let off = LEDPattern.steady(false)
    static let on = LEDPattern.steady(true)

    static func blink(hertz: Double) -> LEDPattern { .cycle(period: 1 / hertz, lit: 0.5 / hertz) }

    init(_ state: LEDState) {
        self = switch state {
        case .playing: .on
        case .loading: .blink(hertz: 2)
        case .waitingForDevice: .blink(hertz: 0.5)
        case .idle: .off
        // A short flash every two seconds: alive, but not playing.
        case .paused: .cycle(period: 2, lit: 0.1)
        case .error: .blink(hertz: 8)
        }
    }

    func level(at time: Double) -> Bool {
        switch self {
        case .steady(let on): on
        case .cycle(let period, let lit): time < cycleStart(time, period) + lit
        }
    }

    /// The first moment after `time` at which `level` differs; nil for a steady pattern.
    func nextChange(after time: Double) -> Double? {
        guard case .cycle(let period, let lit) = self, lit > 0, lit < period else { return nil }
        let start = cycleStart(time, period)
        let change = time < start + lit ? start + lit : start + period
        // Never the past, even after rounding: the driver would wake in a loop.
        return max(change, time.nextUp)
    }

    /// Both functions compare `time` with the same sums, so `level(at: nextChange(after: t))` differs from
    /// `level(at: t)` even where rounding bites.
    private func cycleStart(_ time: Double, _ period: Double) -> Double {
        (time / period).rounded(.down) * period
    }
}
