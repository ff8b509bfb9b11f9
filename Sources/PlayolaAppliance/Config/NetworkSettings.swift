import PlayolaApplianceSupport

/// The `[network]` section: Wi-Fi and the box's name, for the image's network set-up (the service itself never uses it;
/// `playola network-config` turns it into wpa_supplicant's file at boot). The passphrase is a secret: no
/// message says it.
package struct NetworkSettings: Sendable, Equatable {
    static let keys = ["wifi_ssid", "wifi_psk", "wifi_country", "wifi_hidden", "hostname"]

    package struct WiFi: Sendable, Equatable {
        package enum Security: Sendable, Equatable, CustomStringConvertible {
            case open
            /// 8 to 63 printable ASCII characters.
            case passphrase(String)
            /// The 256-bit key itself, 64 lower-case hex digits.
            case key(String)

            /// Never the secret, so no log or test failure prints it.
            package var description: String {
                switch self {
                case .open: "open"
                case .passphrase: "passphrase"
                case .key: "key"
                }
            }
        }

        /// 1 to 32 bytes.
        package var ssid: String
        package var security: Security = .open
        /// Two upper-case letters, or nil: the world regulatory domain.
        package var country: String?
        package var hidden = false
    }

    /// nil: no Wi-Fi.
    package var wifi: WiFi?
    /// The box's name on the network (`NAME.local`); nil: `playola-` and four hex digits of the board's own
    /// (`BoardName`).
    package var hostname: String?
}

extension ConfigValidator {
    mutating func readNetwork(_ entries: [INIEntry]) {
        var ssid: String?, security = NetworkSettings.WiFi.Security.open, country: String?, hidden = false
        var lines: [String: Int] = [:]
        for entry in entries {
            guard NetworkSettings.keys.contains(entry.key) else {
                unknownKey(entry, known: NetworkSettings.keys)
                continue
            }
            lines[entry.key] = entry.line
            switch entry.key {
            case "wifi_ssid": ssid = networkName(entry)
            case "wifi_psk": security = passphrase(entry) ?? security
            case "hostname": config.network.hostname = hostname(entry)
            case "wifi_country":
                if entry.value.utf8.count == 2 && entry.value.allSatisfy({ $0.isASCII && $0.isLetter }) {
                    country = entry.value.uppercased()
                } else {
                    error("wifi_country must be a two-letter country code such as GB, US or DE, not '\(entry.value)'", entry.line)
                }
            default: // wifi_hidden
                hidden = accepted(ConfigValue.bool(entry.value), entry, must: "be true or false") ?? hidden
            }
        }
        guard let ssidLine = lines["wifi_ssid"] else {
            for entry in entries where ["wifi_psk", "wifi_hidden"].contains(entry.key) && !entry.value.isEmpty {
                error("\(entry.key) needs wifi_ssid", entry.line)
            }
            return
        }
        if lines["wifi_country"] == nil {
            warning("no wifi_country: the radio keeps to the channels allowed everywhere and may miss the network", ssidLine)
        }
        if let ssid { config.network.wifi = .init(ssid: ssid, security: security, country: country, hidden: hidden) }
    }

    /// `hostname`: one DNS label (RFC 1123), as mDNS and every router take it; lower-cased.
    private mutating func hostname(_ entry: INIEntry) -> String? {
        let name = entry.value
        let allowed = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x7A).contains(byte | 0x20) || byte == 0x2D }
        guard (1...63).contains(name.utf8.count), name.utf8.allSatisfy(allowed), !name.hasPrefix("-"), !name.hasSuffix("-") else {
            error("hostname must be 1 to 63 letters, digits and '-', not starting or ending with '-' (such as kitchen-radio), "
                  + "not '\(LogField.escaped(name))'", entry.line)
            return nil
        }
        return name.lowercased()
    }

    /// `wifi_ssid`: the name, without the double quotes a wpa_supplicant file puts around it.
    private mutating func networkName(_ entry: INIEntry) -> String? {
        guard notCut(entry, what: "the name read is '\(entry.value)'",
                     fix: "a comment goes on a line of its own; a name with ' ;' in it cannot be written here") else { return nil }
        let name = unquoted(entry, what: "the network's name is what is inside them, '\(Self.inner(entry.value))'")
        guard (1...32).contains(name.utf8.count) else {
            error("wifi_ssid must be 1 to 32 bytes, not \(name.utf8.count) (leave the key out for no Wi-Fi)", entry.line)
            return nil
        }
        return name
    }

    /// `wifi_psk`: a passphrase, or the key as 64 hex digits; nil (reported) when it is neither. An empty
    /// value is an open network.
    private mutating func passphrase(_ entry: INIEntry) -> NetworkSettings.WiFi.Security? {
        guard notCut(entry, what: "the passphrase read would be its first \(entry.value.count) characters",
                     fix: "give the network's 64-hex-digit key instead (wpa_passphrase prints it)") else { return nil }
        let text = unquoted(entry, what: "the passphrase is the \(Self.inner(entry.value).count) characters inside them")
        if text.isEmpty { return .open }
        // ASCII hex digits only: Character.isHexDigit takes fullwidth ones too.
        let isHexDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte | 0x20) }
        if text.utf8.count == 64 && text.utf8.allSatisfy(isHexDigit) { return .key(text.lowercased()) }
        let rule = "a passphrase is 8 to 63 printable ASCII characters, or give the 64-hex-digit key"
        let printable = { (character: Character) in character.isASCII && (0x20...0x7E).contains(character.asciiValue ?? 0) }
        if let found = text.enumerated().first(where: { !printable($0.element) }) {
            let (position, character) = (found.offset, found.element)
            // Other control characters stop the file before it is validated (`TextScan`); still said, not dropped.
            let shown = character == "\t" ? "a tab" : character.isASCII ? "a control character" : "'\(character)'"
            error("wifi_psk holds \(shown) (character \(position + 1) of the passphrase), which is not printable ASCII: \(rule)", entry.line)
            return nil
        }
        guard (8...63).contains(text.utf8.count) else {
            let hex = text.utf8.count == 64 ? " and is not 64 hex digits" : ""
            error("wifi_psk has \(text.utf8.count) characters\(hex): \(rule) (leave it out for an open network)", entry.line)
            return nil
        }
        return .passphrase(text)
    }

    /// False (reported) when libinih cut an inline comment from the value: a blank and `;` start one, so
    /// `correcthorse ;battery` reads as `correcthorse`, and the network would refuse the board in silence.
    private mutating func notCut(_ entry: INIEntry, what: String, fix: String) -> Bool {
        if entry.uncutValue == entry.value { return true }
        error("\(entry.key) stops at a blank and ';', which start a comment: \(what); \(fix)", entry.line)
        return false
    }

    /// The value without surrounding double quotes (said in a warning), else as it is.
    private mutating func unquoted(_ entry: INIEntry, what: String) -> String {
        guard entry.value.count >= 2, entry.value.hasPrefix("\""), entry.value.hasSuffix("\"") else { return entry.value }
        warning("\(entry.key) is in double quotes: \(what), as wpa_supplicant's files write it", entry.line)
        return Self.inner(entry.value)
    }

    private static func inner(_ quoted: String) -> String { String(quoted.dropFirst().dropLast()) }
}
