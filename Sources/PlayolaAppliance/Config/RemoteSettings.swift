import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

/// The `[remote]` section: MPD's protocol on a TCP port (`Remote/`), off unless asked for. The password is a
/// secret: no message says it.
package struct RemoteSettings: Sendable, Equatable, CustomStringConvertible {
    package static let keys = ["listen", "port", "password"]
    /// Shorter passwords fall to guessing over a LAN even at the slowed rate a wrong one is answered at
    /// (`PasswordGate`): 12 characters is what check-config holds an owner to.
    package static let minimumPassword = 12

    package enum Listen: String, Sendable, Equatable, CaseIterable {
        /// Nothing listens.
        case off
        /// 127.0.0.1 only: clients on the box itself (and through an SSH tunnel).
        case localhost
        /// Every address of the box: phones and Home Assistant on the home network. Needs a password.
        case lan
    }

    package var listen = Listen.off
    package var port = 6600
    /// nil: every client may do everything (only with `localhost`).
    package var password: String?

    /// Never the password, so no log line or test failure prints it.
    package var description: String { "listen \(listen.rawValue), port \(port), \(password == nil ? "no password" : "a password")" }
}

extension ConfigValidator {
    mutating func readRemote(_ entries: [INIEntry]) {
        var listenLine: Int?
        var passwordEntry: INIEntry?
        for entry in entries {
            switch entry.key {
            case "listen":
                listenLine = entry.line
                if let listen = accepted(RemoteSettings.Listen(rawValue: entry.value), entry, must: "be off, localhost or lan") {
                    config.remote.listen = listen
                }
            case "port":
                // 1024 and up too would refuse an owner's 80; 0 would be a port the kernel picks, unknown to the phone.
                if let port = accepted(ConfigValue.wholeNumber(entry.value, where: (1...65535).contains), entry, must: "be a TCP port from 1 to 65535") {
                    config.remote.port = port
                }
            case "password":
                passwordEntry = entry
                config.remote.password = remotePassword(entry)
            default:
                unknownKey(entry, known: RemoteSettings.keys)
            }
        }
        if config.remote.listen == .lan, passwordEntry == nil {
            error("listen = lan needs a password of \(RemoteSettings.minimumPassword) characters or more: "
                  + "without one, anyone on the network could steer the radio", listenLine ?? 0)
        }
        if let passwordEntry, config.remote.password != nil, TokenFile.isWorldReadable(file) == true {
            warning("config file \(file) holds the remote password and is readable by everyone; chmod 640 it", passwordEntry.line)
        }
    }

    /// The password, or nil (reported) when it cannot be one. Its text is never in a message.
    private mutating func remotePassword(_ entry: INIEntry) -> String? {
        guard entry.uncutValue == entry.value else {
            error("password stops at a blank and ';', which start a comment: the password read would be its first "
                  + "\(entry.value.count) characters; a password cannot hold ' ;' here", entry.line)
            return nil
        }
        let text = entry.value
        // Control characters never get here: the file's scan refuses them in any value (`TextScan`).
        guard text.count >= RemoteSettings.minimumPassword else {
            error("password must be at least \(RemoteSettings.minimumPassword) characters, not \(text.count): "
                  + "a shorter one can be guessed by anyone on the network", entry.line)
            return nil
        }
        // No upper bound of its own: the INI's 198-character lines hold it well inside one MPD command line.
        return text
    }
}

extension RemoteSettings {
    /// The settings of a config without `[remote]`: off.
    package static let unset = RemoteSettings()
}
