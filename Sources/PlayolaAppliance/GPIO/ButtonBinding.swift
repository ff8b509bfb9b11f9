import PlayolaConfig
/// What each gesture of a button does. Short and long presses are bound separately, and a press that became
/// long never also counts as short, so one press never does two things.
struct ButtonBinding: Sendable, Equatable {
    /// At the press and again while held (auto-repeat); such a button has no short or long press.
    var repeating: ButtonAction? = nil
    var short: ButtonAction? = nil
    var long: ButtonAction? = nil

    /// The binding of a `[gpio]` button.
    init(_ action: ButtonAction) {
        switch action {
        case .volumeUp, .volumeDown:
            repeating = action
        case .shutdown:
            // A child or a sleeve brushing past must not power the radio off.
            long = action
        default:
            short = action
        }
    }

    init(repeating: ButtonAction? = nil, short: ButtonAction? = nil, long: ButtonAction? = nil) {
        self.repeating = repeating
        self.short = short
        self.long = long
    }

    /// The encoder's push switch: stop when playing, play when stopped.
    static let encoderSwitch = ButtonBinding(short: .stop)

    var repeats: Bool { repeating != nil }

    func action(for gesture: ButtonLogic.Gesture) -> ButtonAction? {
        switch gesture {
        case .press, .repeatPress: repeating
        case .shortPress: short
        case .longPress: long
        }
    }
}
