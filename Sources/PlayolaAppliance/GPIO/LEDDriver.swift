import PlayolaConfig
/// The `[led]` outputs: which level each should have now, and when that next changes. Writes only changes,
/// so a steady LED costs nothing.
struct LEDDriver: Sendable {
    let status: LineRef?
    /// On while the last network operation failed.
    let network: LineRef?
    private var pattern = LEDPattern.off
    /// When `pattern` began: a blink starts lit, whenever the state changes.
    private var since = 0.0
    private var written: [LineRef: Bool] = [:]

    init(_ config: ApplianceConfig.LED) {
        status = config.status
        network = config.network
    }

    var lines: [LineRef] { [status, network].compactMap { $0 } }

    /// The outputs to change now.
    mutating func update(state: LEDState, networkTrouble: Bool, now: Double) -> [(line: LineRef, on: Bool)] {
        let wanted = LEDPattern(state)
        if wanted != pattern {
            pattern = wanted
            since = now
        }
        var levels: [(LineRef, Bool)] = []
        if let status { levels.append((status, pattern.level(at: now - since))) }
        if let network { levels.append((network, networkTrouble)) }
        return levels.filter { line, on in
            defer { written[line] = on }
            return written[line] != on
        }
    }

    /// When the status LED next changes by itself; nil when only a new state can change it.
    func nextChange(after now: Double) -> Double? {
        guard status != nil, let change = pattern.nextChange(after: now - since) else { return nil }
        // Back on the absolute clock, rounding may land on `now` itself.
        return max(since + change, now.nextUp)
    }

    /// Everything dark, for when the service stops.
    mutating func off() -> [(line: LineRef, on: Bool)] {
        written = [:]
        return lines.map { ($0, false) }
    }
}
