/// The `[gpio]` section: the buttons, the encoder and how they are wired.
struct GPIOConfig: Sendable, Equatable {
    struct Button: Sendable, Equatable {
        var action: ButtonAction
        var lineRef: LineRef
        /// Config file line.
        var line: Int
    }

    struct Encoder: Sendable, Equatable {
        var a: LineRef
        var b: LineRef
        /// Config file line.
        var line: Int
    }

    enum EncoderAction: String, Sendable, Equatable {
        case volume, station
    }

    /// Needed only when a line is given by offset.
    var chip: String? = nil
    /// In file order.
    var buttons: [Button] = []
    var encoder: Encoder? = nil
    var encoderSwitch: LineRef? = nil
    var encoderAction = EncoderAction.volume
    var debounceMs = 30
    var longPressMs = 1000
    /// Buttons wired to ground, with pull-ups.
    var activeLow = true
}
