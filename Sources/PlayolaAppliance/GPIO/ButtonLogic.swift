import PlayolaConfig
/// How a button's contact becomes presses, from `[gpio]`.
struct ButtonTiming: Sendable, Equatable {
    /// A level counts once it has held this long: contacts chatter for a few milliseconds.
    var debounce = 0.030
    var longPress = 1.0
    var repeatDelay = 0.5
    var repeatInterval = 0.15

    init() {}

    init(_ config: GPIOConfig) {
        debounce = Double(config.debounceMs) / 1000
        longPress = Double(config.longPressMs) / 1000
    }
}

/// One button: debouncing, then presses, long presses and auto-repeat, driven only by the contact's
/// changes and by the time passed in, so it runs the same on a scripted clock as on the real one.
struct ButtonLogic: Sendable {
    enum Gesture: Sendable, Equatable {
        /// The press is certain (debounced).
        case press
        /// Held past the repeat delay, then every repeat interval; only on repeating buttons.
        case repeatPress
        /// Released before the long-press time; never after a long press.
        case shortPress
        /// Held for the long-press time; comes while still held, so the user sees it happen.
        case longPress
    }

    let timing: ButtonTiming
    let repeats: Bool
    /// The contact as last seen, bounce and all.
    private var contact: Bool
    private var contactSince: Double
    private(set) var isPressed: Bool
    private var pressedAt = 0.0
    private var longPressDone = false
    private var repeatsDone = 0
    /// Held already when the service started: a press that began before us is nobody's.
    private var ignoringHold: Bool

    init(pressed: Bool, at time: Double, timing: ButtonTiming, repeats: Bool) {
        self.timing = timing
        self.repeats = repeats
        contact = pressed
        contactSince = time
        isPressed = pressed
        ignoringHold = pressed
    }

    /// When the gestures may next change without the contact changing: nil while nothing is pending.
    var nextDeadline: Double? {
        if contact != isPressed { return contactSince + timing.debounce }
        guard isPressed, !ignoringHold else { return nil }
        if repeats { return pressedAt + timing.repeatDelay + Double(repeatsDone) * timing.repeatInterval }
        return longPressDone ? nil : pressedAt + timing.longPress
    }

    /// The contact closed (true) or opened at `time`.
    mutating func contact(_ pressed: Bool, at time: Double) -> [Gesture] {
        // What was due before this change happened first: a release at 1.01 s comes after a long press at 1 s.
        let gestures = advance(to: time, including: false)
        if pressed != contact {
            contact = pressed
            contactSince = time
        }
        return gestures + advance(to: time)
    }

    /// Everything due by `time`.
    mutating func advance(to time: Double, including: Bool = true) -> [Gesture] {
        var gestures: [Gesture] = []
        while let deadline = nextDeadline, including ? deadline <= time : deadline < time {
            if let gesture = fire() { gestures.append(gesture) }
        }
        return gestures
    }

    private mutating func fire() -> Gesture? {
        if contact != isPressed {
            isPressed = contact
            if isPressed {
                // Timed from the first moment of the stable level, not from when debouncing ended.
                pressedAt = contactSince
                longPressDone = false
                repeatsDone = 0
                return .press
            }
            defer { ignoringHold = false }
            return repeats || longPressDone || ignoringHold ? nil : .shortPress
        }
        if repeats {
            repeatsDone += 1
            return .repeatPress
        }
        longPressDone = true
        return .longPress
    }
}
