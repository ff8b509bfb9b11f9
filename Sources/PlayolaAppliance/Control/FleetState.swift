import PlayolaEngine
import Synchronization

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

/// Written by the fleet's thread at each connect, loss and failed attempt; read by `status()`.
package final class FleetState: Sendable {
    private let value = Mutex<FleetStatus?>(nil)

    package init() {}

    /// nil: no fleet.
    package var current: FleetStatus? { value.withLock { $0 } }

    package func set(_ status: FleetStatus?) { value.withLock { $0 = status } }
}
