import PlayolaEngine

/// The fleet's link to its broker, as `playola status` says it (`Fleet: connected to …`) and status --json
/// carries it (`fleet`). Here, below the fleet's layer, so the controller can report it without knowing MQTT.
package struct FleetStatus: Codable, Sendable, Equatable {
    /// `mqtts://host:port`.
    package var broker: String
    package var connected: Bool
    /// Why it is not connected (nil while the first attempt runs).
    package var problem: String?

    package init(broker: String, connected: Bool, problem: String? = nil) {
        (self.broker, self.connected, self.problem) = (broker, connected, problem)
    }
}
