/// The `[network]` section: Wi-Fi for the image's network set-up (the service itself never reads it; the
/// image turns it into a wpa_supplicant file at boot). The passphrase is a secret: no message says it.
enum NetworkSettings {
    static let keys = ["wifi_ssid", "wifi_psk", "wifi_country", "wifi_hidden"]

    /// What is wrong with one entry, or nil.
    static func problem(key: String, value: String) -> String? {
        switch key {
        case "wifi_ssid":
            return (1...32).contains(value.utf8.count) ? nil
                : "wifi_ssid must be 1 to 32 bytes, not \(value.utf8.count) (leave the key out for no Wi-Fi)"
        case "wifi_psk":
            // WPA's rules: a passphrase of 8-63 printable ASCII characters, or the 256-bit key as 64 hex digits.
            let printable = value.utf8.allSatisfy { (0x20...0x7E).contains($0) }
            let hexKey = value.utf8.count == 64 && value.allSatisfy(\.isHexDigit)
            guard value.isEmpty || hexKey || (printable && (8...63).contains(value.utf8.count)) else {
                return "wifi_psk must be 8 to 63 printable ASCII characters or 64 hex digits "
                    + "(this one has \(value.count) characters; leave it out for an open network)"
            }
            return nil
        case "wifi_country":
            return value.utf8.count == 2 && value.allSatisfy({ $0.isASCII && $0.isLetter }) ? nil
                : "wifi_country must be a two-letter country code such as GB, US or DE, not '\(value)'"
        default: // wifi_hidden
            return ConfigValue.bool(value) != nil ? nil : "wifi_hidden must be true or false, not '\(value)'"
        }
    }

    /// Problems of the section as a whole: the key whose line is reported, the message, whether it is an error.
    static func crossProblems(_ values: [String: String]) -> [(key: String, message: String, isError: Bool)] {
        guard !(values["wifi_ssid"] ?? "").isEmpty else {
            return ["wifi_psk", "wifi_hidden"].filter { !(values[$0] ?? "").isEmpty }.map { ($0, "\($0) needs wifi_ssid", true) }
        }
        guard values["wifi_country"] == nil else { return [] }
        return [("wifi_ssid", "no wifi_country: the radio keeps to the channels allowed everywhere and may miss the network", false)]
    }
}
