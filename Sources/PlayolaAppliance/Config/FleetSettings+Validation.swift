import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

extension ConfigValidator {
    /// `[fleet]`: `sectionLine` is its header's (nil: no section, so no fleet); every key checked, then the
    /// ones that go together (a broker at all, a key with its certificate, TLS for a certificate).
    mutating func readFleet(_ entries: [INIEntry], sectionLine: Int?) {
        guard let sectionLine else { return }
        var fleet = FleetSettings()
        var brokerEntry: INIEntry?
        var passwordEntry: INIEntry?
        var certEntry: INIEntry?, keyEntry: INIEntry?
        for entry in entries {
            switch entry.key {
            case "broker":
                switch MQTTBroker.parse(entry.value) {
                case .success(let broker):
                    fleet.broker = broker
                    brokerEntry = entry
                case .failure(let problem):
                    error("broker '\(entry.value)' \(problem.reason), like mqtts://broker.example.net:8883", entry.line)
                }
            case "ca_file":
                fleet.caFile = fleetFile(entry)
            case "cert_file":
                certEntry = entry
                fleet.certFile = fleetFile(entry)
            case "key_file":
                keyEntry = entry
                fleet.keyFile = fleetFile(entry)
            case "user":
                if entry.value.isEmpty || entry.value.contains(where: { $0 == " " || $0 == "\t" }) {
                    error("user must be one word, not '\(entry.value)'", entry.line)
                } else {
                    fleet.user = entry.value
                }
            case "password":
                passwordEntry = entry
                if entry.uncutValue != entry.value {
                    error("password stops at a blank and ';', which start a comment: a password cannot hold ' ;' here", entry.line)
                } else if entry.value.isEmpty {
                    error("password is empty", entry.line)
                } else {
                    fleet.password = entry.value
                }
            case "topic_prefix":
                if let problem = FleetSettings.topicLevelProblem(entry.value) {
                    error("topic_prefix '\(entry.value)' \(problem); it is one topic level, like playola", entry.line)
                } else {
                    fleet.topicPrefix = entry.value
                }
            case "group":
                if let groups = fleetGroups(entry) { fleet.groups = groups }
            case "keepalive":
                let range = FleetSettings.keepaliveRange
                if let seconds = accepted(ConfigValue.wholeNumber(entry.value, where: range.contains), entry,
                                          must: "be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)") {
                    fleet.keepalive = seconds
                }
            case "ha_discovery":
                if let on = accepted(ConfigValue.bool(entry.value), entry, must: "be yes or no") { fleet.haDiscovery = on }
            default:
                unknownKey(entry, known: FleetSettings.keys)
            }
        }
        guard let brokerEntry else {
            return error("[fleet] needs a broker, like broker = mqtts://broker.example.net:8883 (or no [fleet] section: no fleet)", sectionLine)
        }
        switch (certEntry, keyEntry) {
        case (let cert?, nil): error("cert_file needs key_file, the certificate's private key", cert.line)
        case (nil, let key?): error("key_file needs cert_file, the certificate it is the key of", key.line)
        default: break
        }
        if let passwordEntry, fleet.user == nil { error("password needs a user", passwordEntry.line) }
        if !fleet.broker.secure {
            if let certEntry { error("cert_file needs TLS: make the broker mqtts://", certEntry.line) }
            if let caFile = entries.first(where: { $0.key == "ca_file" }) { warning("ca_file is unused with mqtt://", caFile.line) }
            if !fleet.broker.isLoopback {
                warning("broker \(fleet.broker) is plain MQTT: status, commands"
                        + (passwordEntry == nil ? "" : " and the password") + " cross the network unencrypted; use mqtts://", brokerEntry.line)
            }
        }
        if let passwordEntry, fleet.password != nil, TokenFile.isWorldReadable(file) == true {
            warning("config file \(file) holds the fleet password and is readable by everyone; chmod 640 it", passwordEntry.line)
        }
        config.fleet = fleet
    }

    /// An absolute path; a file that is not there (yet) is a warning: certificates may be provisioned after
    /// the INI, and the fleet then connects once they are.
    private mutating func fleetFile(_ entry: INIEntry) -> String? {
        guard let path = absolutePath(entry) else { return nil }
        if access(path, R_OK) != 0 {
            warning("\(entry.key) \(path): \(Errno.current); the fleet cannot connect until it is readable", entry.line)
        }
        return path
    }

    /// `group = lobby, floor-2`: each a topic level, no repeats, at most `mostGroups`.
    private mutating func fleetGroups(_ entry: INIEntry) -> [String]? {
        let names = entry.value.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmedBlanks }
        guard names.count <= FleetSettings.mostGroups else {
            error("group names \(names.count) groups; at most \(FleetSettings.mostGroups)", entry.line)
            return nil
        }
        var seen: Set<String> = []
        for name in names {
            if let problem = FleetSettings.topicLevelProblem(name) {
                error("group '\(name)' \(problem); groups are comma-separated names, like lobby, floor-2", entry.line)
                return nil
            }
            guard seen.insert(name).inserted else {
                error("group '\(name)' is named twice", entry.line)
                return nil
            }
        }
        return names
    }
}
