import FoundationEssentials
import PlayolaControl
import PlayolaEngine

/// Home Assistant's MQTT discovery (its convention: a retained JSON config on
/// `homeassistant/<component>/<node_id>/<object_id>/config`): the box appears as one device with its state
/// and what plays (sensors), its station (a select of the configured stations), next and stop (buttons)
/// and its volume (a number), each reading the retained status and writing the box's command topic with
/// the control socket's own requests. Every entity is available while `PREFIX/DEVICE/online` says `true`.
package enum HomeAssistantDiscovery {
    package static let root = "homeassistant"

    /// One retained config message.
    package struct Config: Sendable, Equatable {
        package var topic: String
        package var payload: String

        /// The same topic, empty: the broker drops its retained config and Home Assistant the entity.
        package var removal: Config { Config(topic: topic, payload: "") }
    }

    package static func configs(topics: FleetTopics, stations: [String]) -> [Config] {
        let node = nodeID(topics.device)
        let device = Device(identifiers: ["playola-\(topics.device)"], name: "Playola \(topics.device.prefix(8))",
                            manufacturer: "Playola", model: "Playola Appliance", sw_version: PlayolaVersion.string)
        func entity(_ component: String, _ object: String, _ name: String, _ fill: (inout Entity) -> Void) -> Config {
            var entity = Entity(name: name, unique_id: "\(node)_\(object)", object_id: "playola_\(node)_\(object)",
                                availability_topic: topics.online, device: device)
            fill(&entity)
            return Config(topic: "\(root)/\(component)/\(node)/\(object)/config", payload: ControlReply.line(entity))
        }
        return [
            entity("sensor", "state", "State") {
                $0.state_topic = topics.status
                $0.value_template = "{{ value_json.state }}"
                $0.icon = "mdi:radio"
            },
            entity("sensor", "now_playing", "Now playing") {
                $0.state_topic = topics.status
                // A stream's title may have no artist; nothing plays: empty.
                $0.value_template = "{% if value_json.spin is defined %}{{ [value_json.spin.artist, value_json.spin.title] | select | join(' – ') }}{% endif %}"
                $0.icon = "mdi:music"
            },
            entity("select", "station", "Station") {
                $0.state_topic = topics.status
                $0.value_template = "{{ value_json.station }}"
                $0.command_topic = topics.command
                $0.command_template = #"{"play":{"station":"{{ value }}"}}"#
                $0.options = stations
            },
            entity("button", "next", "Next station") {
                $0.command_topic = topics.command
                $0.payload_press = ControlRequest.next.line
                $0.icon = "mdi:skip-next"
            },
            entity("button", "stop", "Stop") {
                $0.command_topic = topics.command
                $0.payload_press = ControlRequest.stop.line
                $0.icon = "mdi:stop"
            },
            entity("number", "volume", "Volume") {
                $0.state_topic = topics.status
                $0.value_template = "{{ value_json.volume }}"
                $0.command_topic = topics.command
                $0.command_template = #"{"volume":{"percent":{{ value | int }}}}"#
                ($0.min, $0.max, $0.step) = (0, 100, 1)
                $0.unit_of_measurement = "%"
                $0.icon = "mdi:volume-high"
            },
        ]
    }

    /// HA's node and object ids are `[a-zA-Z0-9_-]`: a UUID is; anything else a device id holds becomes `_`.
    static func nodeID(_ device: String) -> String {
        String(device.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" })
    }

    // The field names are HA's (snake case), so the types spell them as HA does.
    struct Device: Codable, Equatable {
        var identifiers: [String]
        var name: String
        var manufacturer: String
        var model: String
        var sw_version: String
    }

    struct Entity: Codable, Equatable {
        var name: String
        var unique_id: String
        var object_id: String
        var availability_topic: String
        var payload_available = "true"
        var payload_not_available = "false"
        var device: Device
        var state_topic: String?
        var value_template: String?
        var command_topic: String?
        var command_template: String?
        var payload_press: String?
        var options: [String]?
        var min: Int?
        var max: Int?
        var step: Int?
        var unit_of_measurement: String?
        var icon: String?
    }
}
