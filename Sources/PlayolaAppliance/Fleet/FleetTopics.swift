import PlayolaConfig

/// The box's topics under `PREFIX/DEVICE/`, and what it subscribes to: its own `cmd` and each group's. A
/// broker's ACL (doc/fleet.md) lets a box write only under its own `PREFIX/DEVICE/` and read only these.
package struct FleetTopics: Sendable, Equatable {
    package let prefix: String
    package let device: String
    package let groups: [String]

    package init(prefix: String, device: String, groups: [String]) {
        (self.prefix, self.device, self.groups) = (prefix, device, groups)
    }

    /// Retained: the `status --json` object, newest.
    package var status: String { "\(prefix)/\(device)/status" }
    /// Retained: `true` while connected, `false` (the last will) after.
    package var online: String { "\(prefix)/\(device)/online" }
    /// Not retained: one answer per command.
    package var reply: String { "\(prefix)/\(device)/reply" }
    package var command: String { "\(prefix)/\(device)/cmd" }

    package func groupCommand(_ group: String) -> String { "\(prefix)/group/\(group)/cmd" }

    /// Exactly these, no wildcard: nothing else a broker holds for the prefix ever reaches the box.
    package var subscriptions: [String] { [command] + groups.map(groupCommand) }

    /// Whether a message on `topic` is a command for this box (a broker that ignores our subscriptions, or
    /// an ACL wider than ours, cannot slip another topic's messages in as commands).
    package func isCommand(_ topic: String) -> Bool { subscriptions.contains(topic) }
}
