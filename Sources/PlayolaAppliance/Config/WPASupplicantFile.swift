/// wpa_supplicant's configuration for the INI's Wi-Fi. Nothing of the owner's text reaches it as text: the
/// SSID is written in hex, the passphrase as the key derived from it, the country as two checked letters,
/// so no character of theirs can end a line or a block of wpa_supplicant's syntax.
package enum WPASupplicantFile {
    package static func text(_ wifi: NetworkSettings.WiFi, source: String) -> String {
        // The source is a path from the command line or the search, not the owner's text; still one line.
        let source = String(source.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        var lines = ["# Written by playola network-config from \(source) at boot: edit playola.ini on the boot partition.",
                     "ctrl_interface=/run/wpa_supplicant"]
        if let country = wifi.country { lines.append("country=\(country)") }
        lines.append("network={")
        lines.append("    ssid=" + WPAKey.hex(Array(wifi.ssid.utf8)))
        if wifi.hidden { lines.append("    scan_ssid=1") }
        switch wifi.security {
        case .open:
            lines.append("    key_mgmt=NONE")
        case .passphrase(let passphrase):
            lines += protected(key: WPAKey.hex(WPAKey.derive(passphrase: passphrase, ssid: wifi.ssid)))
        case .key(let key):
            lines += protected(key: key)
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// WPA2, and WPA3's SHA-256 key management where the access point offers it (management frames
    /// protected when both can).
    private static func protected(key: String) -> [String] {
        ["    key_mgmt=WPA-PSK WPA-PSK-SHA256", "    ieee80211w=1", "    psk=\(key)"]
    }
}
