/// The `[gpio]` section: the buttons, the encoder and how they are wired.
package struct GPIOConfig: Sendable, Equatable {
    package struct Button: Sendable, Equatable {
        package var action: ButtonAction
        package var lineRef: LineRef
        /// Config file line.
        var line: Int
    }

    package struct Encoder: Sendable, Equatable {
        package var a: LineRef
        package var b: LineRef
        /// Config file line.
        var line: Int
    }

    package enum EncoderAction: String, Sendable, Equatable {
        case volume, station
    }

    /// Needed only when a line is given by offset.
    package var chip: String? = nil
    /// In file order.
    package var buttons: [Button] = []
    package var encoder: Encoder? = nil
    package var encoderSwitch: LineRef? = nil
    package var encoderAction = EncoderAction.volume
    package var debounceMs = 30
    package var longPressMs = 1000
    /// Buttons wired to ground, with pull-ups.
    package var activeLow = true
}
