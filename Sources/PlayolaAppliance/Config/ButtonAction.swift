/// What a button (or the encoder in station mode) asks the appliance to do.
package enum ButtonAction: Sendable, Equatable {
    case nextStation, previousStation, stop, interrupt, volumeUp, volumeDown, shutdown
    case station(String)

    /// The `[gpio]` keys of the fixed actions, in the order the sample config documents them.
    static let keyed: [(key: String, action: ButtonAction)] = [
        ("next_station", .nextStation), ("previous_station", .previousStation), ("stop", .stop),
        ("interrupt", .interrupt), ("volume_up", .volumeUp), ("volume_down", .volumeDown), ("shutdown", .shutdown),
    ]
}
