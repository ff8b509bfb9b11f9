import PlayolaConfig
import PlayolaApplianceSupport
/// The buttons, encoder and encoder switch of a `GPIOConfig`: line events and the passing of time in,
/// actions out. No thread and no clock of its own, so a script drives it exactly as the hardware does.
struct GPIOControls: Sendable {
    enum Output: Sendable, Equatable {
        case perform(ButtonAction)
        /// Percentage points.
        case changeVolume(by: Int)
    }

    /// Percentage points per encoder detent.
    static let volumePerDetent = 5

    private struct Button: Sendable {
        var logic: ButtonLogic
        let binding: ButtonBinding
    }

    private struct Encoder: Sendable {
        let a: LineRef, b: LineRef
        var closedA: Bool, closedB: Bool
        var decoder: QuadratureDecoder
    }

    private let activeLow: Bool
    private let encoderAction: GPIOConfig.EncoderAction
    private var buttons: [LineRef: Button] = [:]
    private var encoder: Encoder?
    /// Events that arrive stamped earlier than what was already handled are taken as happening now.
    private(set) var time: Double

    /// `level`: each input's physical level now, where known; unknown lines are taken as idle.
    init(config: GPIOConfig, now: Double, level: (LineRef) -> Bool?) {
        activeLow = config.activeLow
        encoderAction = config.encoderAction
        time = now
        let timing = ButtonTiming(config)
        func closed(_ line: LineRef) -> Bool { level(line).map { $0 != config.activeLow } ?? false }
        var bindings = config.buttons.map { ($0.lineRef, ButtonBinding($0.action)) }
        if let line = config.encoderSwitch { bindings.append((line, .encoderSwitch)) }
        for (line, binding) in bindings {
            let logic = ButtonLogic(pressed: closed(line), at: now, timing: timing, repeats: binding.repeats)
            buttons[line] = Button(logic: logic, binding: binding)
        }
        if let lines = config.encoder {
            let a = closed(lines.a), b = closed(lines.b)
            encoder = Encoder(a: lines.a, b: lines.b, closedA: a, closedB: b, decoder: QuadratureDecoder(a: a, b: b))
        }
    }

    /// Every line the controls read.
    static func inputs(of config: GPIOConfig) -> [LineRef] {
        config.buttons.map(\.lineRef) + [config.encoder?.a, config.encoder?.b, config.encoderSwitch].compactMap { $0 }
    }

    /// When something falls due without any line changing: a debounce settling, a long press, a repeat.
    var nextDeadline: Double? { buttons.values.compactMap(\.logic.nextDeadline).min() }

    mutating func handle(_ event: LineEvent) -> [Output] {
        let time = max(event.time, self.time)
        var outputs = advance(to: time, including: false)
        let closed = event.level != activeLow
        if var button = buttons[event.line] {
            outputs += button.logic.contact(closed, at: time).compactMap(button.binding.action).map(Output.perform)
            buttons[event.line] = button
        } else if var encoder, event.line == encoder.a || event.line == encoder.b {
            if event.line == encoder.a { encoder.closedA = closed } else { encoder.closedB = closed }
            let step = encoder.decoder.update(a: encoder.closedA, b: encoder.closedB)
            self.encoder = encoder
            if step != 0 { outputs.append(output(forDetent: step)) }
        }
        return outputs + advance(to: time)
    }

    /// Everything due by `time`, in the order it fell due.
    mutating func advance(to time: Double, including: Bool = true) -> [Output] {
        var outputs: [Output] = []
        while let (line, deadline) = buttons.compactMap({ line, button in button.logic.nextDeadline.map { (line, $0) } })
            .min(by: { $0.1 < $1.1 }), including ? deadline <= time : deadline < time {
            let binding = buttons[line]!.binding
            outputs += buttons[line]!.logic.advance(to: deadline).compactMap(binding.action).map(Output.perform)
        }
        self.time = max(self.time, time)
        return outputs
    }

    private func output(forDetent step: Int) -> Output {
        switch encoderAction {
        case .volume: .changeVolume(by: step * Self.volumePerDetent)
        case .station: .perform(step > 0 ? .nextStation : .previousStation)
        }
    }
}
