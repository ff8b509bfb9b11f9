import PlayolaConfig
/// One turn of the GPIO thread: set the LEDs, wait for an edge no longer than until the next thing falls
/// due, and hand what happened to the actions. Separate from the thread so tests can turn it on a
/// scripted clock.
struct GPIOLoop {
    let source: any GPIOLineSource
    let actions: GPIOActions
    private var controls: GPIOControls
    private var leds: LEDDriver

    init(config: GPIOConfig, led: ApplianceConfig.LED, source: any GPIOLineSource, actions: GPIOActions) {
        self.source = source
        self.actions = actions
        controls = GPIOControls(config: config, now: source.now(), level: source.level(of:))
        leds = LEDDriver(led)
    }

    /// `maximumWait`: how long a turn may last when nothing is due, which bounds how stale the LED state
    /// gets and how long the thread takes to notice it should stop.
    mutating func turn(maximumWait: Double) {
        let now = source.now()
        if !leds.lines.isEmpty {
            let state = actions.ledState(), trouble = actions.networkTrouble()
            for (line, on) in leds.update(state: state, networkTrouble: trouble, now: now) { source.setOutput(line, on) }
        }
        let deadline = [controls.nextDeadline, leds.nextChange(after: now)].compactMap { $0 }.min() ?? .infinity
        if let event = source.nextEvent(timeout: min(max(deadline - now, 0), maximumWait)) {
            deliver(controls.handle(event))
        }
        deliver(controls.advance(to: source.now()))
    }

    /// The LEDs go dark: a stopped service shows nothing rather than a frozen state.
    mutating func finish() {
        for (line, on) in leds.off() { source.setOutput(line, on) }
    }

    private func deliver(_ outputs: [GPIOControls.Output]) {
        for output in outputs {
            switch output {
            case .perform(let action): actions.perform(action)
            case .changeVolume(let points): actions.encoderStep(points)
            }
        }
    }
}
