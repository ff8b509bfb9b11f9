import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

/// The `[fleet]` section: the box's status published to an MQTT broker and commands taken from it (`Fleet/`).
/// Off unless the section is there: without it no library is loaded and no thread started. The password is
/// a secret: no message says it.
package struct FleetSettings: Sendable, Equatable, CustomStringConvertible {
    package static let keys = ["broker", "ca_file", "cert_file", "key_file", "user", "password", "topic_prefix", "group",
                               "keepalive", "ha_discovery"]
    /// Seconds between the broker's keep-alive pings: under 5 a busy Wi-Fi drops the box for nothing; over 600
    /// a dead box shows online for ten minutes.
    package static let keepaliveRange = 5...600
    package static let defaultKeepalive = 30
    /// Where a `mqtts://` broker's certificate is checked when no `ca_file` is given: Debian's CA directory.
    package static let systemCADirectory = "/etc/ssl/certs"
    /// One topic level of a prefix or a group; MQTT allows 64 KiB of topic, a broker's ACL far less.
    package static let longestName = 64
    /// Each group is a subscription held by the broker for every box: a handful is what a fleet needs.
    package static let mostGroups = 16

    package var broker = MQTTBroker(secure: true, host: "", port: 8883)
    /// nil: the system's CA directory (for `mqtts://`).
    package var caFile: String?
    package var certFile: String?
    package var keyFile: String?
    package var user: String?
    package var password: String?
    package var topicPrefix = "playola"
    package var groups: [String] = []
    package var keepalive = defaultKeepalive
    package var haDiscovery = false

    package init() {}

    /// Never the password.
    package var description: String {
        var said = "broker \(broker), prefix \(topicPrefix)"
        if !groups.isEmpty { said += ", groups \(groups.joined(separator: ","))" }
        if certFile != nil { said += ", a client certificate" }
        if let user { said += ", user \(user)" + (password == nil ? "" : " with a password") }
        return said + ", keepalive \(keepalive)s" + (haDiscovery ? ", Home Assistant discovery" : "")
    }

    /// A name that is one MQTT topic level (a prefix, a group, a device id): not empty, no `/` (a level of its
    /// own), no `+` or `#` (wildcards, which would widen a subscription or be refused in a publication), no
    /// control characters, no leading `$` (the broker's own topics). nil when fine, else why not.
    package static func topicLevelProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.count > longestName { return "is longer than \(longestName) characters" }
        if let bad = name.first(where: { "+#/".contains($0) }) { return "holds '\(bad)', which MQTT topics reserve" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "holds a control character" }
        if name.hasPrefix("$") { return "starts with '$', which names the broker's own topics" }
        return nil
    }
}

/// `mqtts://host:8883` or `mqtt://host:1883`.
package struct MQTTBroker: Sendable, Equatable, CustomStringConvertible {
    /// TLS (`mqtts://`).
    package var secure: Bool
    package var host: String
    package var port: Int

    package init(secure: Bool, host: String, port: Int) {
        (self.secure, self.host, self.port) = (secure, host, port)
    }

    package var description: String { "\(secure ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// 127.0.0.0/8, ::1 or localhost: a broker on the box itself, where plain MQTT crosses no network.
    package var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The URL's parts, or why it is not one: a scheme, a host (a name, an IPv4 address or `[IPv6]`), an
    /// optional port from 1 to 65535, nothing after (a `/` alone aside).
    package static func parse(_ text: String) -> Result<MQTTBroker, Problem> {
        let secure: Bool
        var rest: Substring
        if text.hasPrefix("mqtts://") {
            (secure, rest) = (true, text.dropFirst(8))
        } else if text.hasPrefix("mqtt://") {
            (secure, rest) = (false, text.dropFirst(7))
        } else {
            return .failure(Problem("must start with mqtts:// (or mqtt://)"))
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("@") { return .failure(Problem("holds '@': give user and password as keys of their own")) }
        if rest.contains("/") || rest.contains("?") { return .failure(Problem("names a path: a broker is only a host and a port")) }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return .failure(Problem("has '[' without ']'")) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(Problem("has something after ']' that is not :PORT")) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return .failure(Problem("has no host")) }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:".contains($0)) }) else {
            return .failure(Problem("has a host that is not a name or an address"))
        }
        var port = secure ? 8883 : 1883
        if let portText {
            guard let number = ConfigValue.wholeNumber(String(portText), where: (1...65535).contains) else {
                return .failure(Problem("has port '\(portText)'; a port is a number from 1 to 65535"))
            }
            port = number
        }
        return .success(MQTTBroker(secure: secure, host: String(host), port: port))
    }

    package struct Problem: Error, Equatable {
        package var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
