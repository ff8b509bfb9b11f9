import FoundationEssentials
import Glibc
import PlayolaEngine
import PlayolaConfig
import PlayolaApplianceSupport

/// `playola network-config`: the INI's Wi-Fi as wpa_supplicant's file, run as root at boot before Wi-Fi
/// starts. The INI is read and checked by the very code `check-config` runs, so what the board is handed is
/// what `check-config` accepted. Root reads no file the service can write: its fallback is its own copy of
/// the last INI it applied, kept where only root can write and checked again before it is used.
enum NetworkConfigCommand {
    static let defaultOut = "/run/playola-wifi"
    static let defaultLastGood = "/var/lib/persistent/network/playola.ini"
    static let fileName = "wpa_supplicant.conf"
    /// The box's name on the network, for `hostname --file` (the image's playola-hostname.service).
    static let hostnameFile = "hostname"
    /// `MPD_PORT=N` while `[remote] listen = lan`: what the image's playola-mdns.service advertises as `_mpd._tcp`.
    static let mdnsFile = "mdns.env"

    static let help = """
        usage: playola network-config [--config FILE] [--out DIR] [--last-good FILE]

        Writes DIR/\(fileName) (default DIR: \(defaultOut)) from the [network] section of FILE (default:
        \(ConfigLocation.searchDescription), the first that exists) when FILE passes `playola check-config`,
        and keeps FILE's bytes at --last-good (default: \(defaultLastGood)); else from that kept copy, checked
        again (renamed to FILE.rejected when it fails). Without wifi_ssid the file is removed: Wi-Fi off.
        Also writes DIR/\(hostnameFile), the box's name ([network] hostname, else playola- and four hex digits of
        the board's serial number or MAC address), and DIR/\(mdnsFile) while [remote] listens on the LAN.
        Exits 0 when a configuration was applied, 1 when none was valid, 2 on a wrong command line.
        """

    static func run(_ words: [String]) -> Int32 {
        if words.contains(where: { $0 == "--help" || $0 == "-h" }) {
            Console.out(help)
            return 0
        }
        let arguments: Arguments
        do {
            arguments = try Arguments(words, valued: ["config", "out", "last-good"])
            if let word = arguments.positional.first ?? arguments.flags.sorted().first.map({ "--" + $0 }) {
                throw UsageError("unexpected '\(word)'")
            }
        } catch {
            Console.error("playola network-config: \(error)\n\(help)")
            return 2
        }
        let location = ConfigLocation.resolve(explicit: arguments.options["config"])
        for (path, reason) in location.unreachable { Console.error("\(path): cannot be looked at (\(reason)); reading \(location.path)") }
        let out = arguments.options["out"] ?? defaultOut
        let lastGood = arguments.options["last-good"] ?? defaultLastGood
        WholeFile.removeLeftovers(of: out + "/" + fileName)
        WholeFile.removeLeftovers(of: lastGood)

        let path = location.path
        let (bytes, config, diagnostics) = check(path)
        if let bytes, let config {
            keep(bytes, at: lastGood)
            return apply(config, from: path, to: out)
        }
        let why = "\(path): not valid (\(summary(diagnostics)))"
        switch checkKept(lastGood) {
        case .valid(let kept):
            Console.out("\(why): Wi-Fi from the copy kept at its last good boot, \(lastGood)")
            return apply(kept, from: lastGood, to: out)
        case .missing:
            Console.out("\(why), and no copy is kept from a good boot (\(lastGood)): Wi-Fi off")
        case .rejected(let reason):
            let aside = lastGood + ".rejected"
            let renamed = rename(lastGood, aside) == 0 ? "renamed to \(aside)" : "not renamed (\(Errno.current))"
            Console.out("\(why), and so is the copy kept at its last good boot, \(lastGood) (\(reason)): \(renamed); Wi-Fi off")
        }
        _ = removeWiFi(in: out)
        _ = name(nil, to: out)
        return 1
    }

    /// The file's bytes and the configuration they make (nil on any error), its findings on standard error.
    private static func check(_ path: String) -> (bytes: [UInt8]?, config: ApplianceConfig?, diagnostics: [Diagnostic]) {
        let bytes: [UInt8]
        do throws(ConfigError) {
            bytes = try INIFile.read(path)
        } catch {
            let diagnostic = Diagnostic.error(error.message, file: path, line: error.line)
            Console.error(diagnostic.description)
            return (nil, nil, [diagnostic])
        }
        let (config, diagnostics) = ApplianceConfig.load(bytes: bytes, file: path)
        for diagnostic in Diagnostic.bounded(diagnostics) { Console.error(diagnostic.description) }
        return (bytes, config, diagnostics)
    }

    private enum Kept {
        case valid(ApplianceConfig)
        case missing
        case rejected(String)
    }

    /// The copy root kept, if it is root's own file (nobody else could have written it) and passes the checks.
    private static func checkKept(_ path: String) -> Kept {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT ? .missing : .rejected(Errno.current.description) }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else {
            return .rejected("not a file only its owner, uid \(geteuid()), can write: uid \(info.st_uid), mode "
                             + String(info.st_mode & 0o7777, radix: 8))
        }
        let (_, config, diagnostics) = check(path)
        guard let config else { return .rejected(summary(diagnostics)) }
        return .valid(config)
    }

    /// "3 errors, the first at line 4: …".
    private static func summary(_ diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.filter { $0.severity == .error }
        guard let first = errors.first else { return "no errors" }
        let count = errors.count == 1 ? "1 error" : "\(Diagnostic.grouped(errors.count)) errors"
        return "\(count), the first" + (first.line > 0 ? " at line \(first.line)" : "") + ": \(first.message)"
    }

    /// Keeps the INI for a boot whose INI has errors; a copy that cannot be kept is said, and the Wi-Fi applied anyway.
    private static func keep(_ bytes: [UInt8], at path: String) {
        let folder = WholeFile.directory(of: path)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            return Console.error("playola network-config: no copy is kept for a boot whose INI has errors: cannot create \(folder): \(Errno.current)")
        }
        do throws(WholeFile.WriteError) {
            if try ConfigKeeper.keep(bytes, at: path) { Console.out("kept for a boot whose INI has errors: \(path)") }
        } catch {
            Console.error("playola network-config: no copy is kept for a boot whose INI has errors: \(error)")
        }
    }

    /// The Wi-Fi file and the name; 0 when both are done, 1 when a file could not be written.
    private static func apply(_ config: ApplianceConfig, from source: String, to out: String) -> Int32 {
        let wifi = apply(config.network, from: source, to: out)
        return name(config, to: out) ? wifi : 1
    }

    /// Writes the box's name and, while remote control listens on the LAN, what mDNS advertises; false (said)
    /// when a file could not be written. `config` nil: no valid configuration, the board's own name, nothing advertised.
    private static func name(_ config: ApplianceConfig?, to out: String) -> Bool {
        let name = config?.network.hostname ?? BoardName.ofThisBoard()
        let port = config.flatMap { $0.remote.listen == .lan ? $0.remote.port : nil }
        do throws(WholeFile.WriteError) {
            let path = out + "/" + hostnameFile
            if mkdir(out, 0o700) != 0 && errno != EEXIST { throw WholeFile.WriteError(path: path, step: .create, reason: .current) }
            try WholeFile.write(Data((name + "\n").utf8), to: path, mode: 0o644)
            if let port {
                try WholeFile.write(Data("MPD_PORT=\(port)\n".utf8), to: out + "/" + mdnsFile, mode: 0o644)
            } else if unlink(out + "/" + mdnsFile) != 0 && errno != ENOENT {
                throw WholeFile.WriteError(path: out + "/" + mdnsFile, step: .rename, reason: .current)
            }
        } catch {
            Console.error("playola network-config: \(error)")
            return false
        }
        Console.out("name on the network: \(name).local" + (port.map { ", MPD's protocol advertised on port \($0)" } ?? ""))
        return true
    }

    /// Writes the Wi-Fi file for `network` (or removes it: Wi-Fi off); 0 when done, 1 when the file could not be.
    private static func apply(_ network: NetworkSettings, from source: String, to out: String) -> Int32 {
        guard let wifi = network.wifi else {
            guard removeWiFi(in: out) else { return 1 }
            Console.out("no wifi_ssid in \(source): Wi-Fi off")
            return 0
        }
        let path = out + "/" + fileName
        do throws(WholeFile.WriteError) {
            if mkdir(out, 0o700) != 0 && errno != EEXIST { throw WholeFile.WriteError(path: path, step: .create, reason: .current) }
            try WholeFile.write(Data(WPASupplicantFile.text(wifi, source: source).utf8), to: path, mode: 0o600)
        } catch {
            Console.error("playola network-config: \(error)")
            return 1
        }
        let open = if case .open = wifi.security { ", open network" } else { "" }
        Console.out("Wi-Fi: '\(wifi.ssid)'\(wifi.hidden ? " (hidden)" : "")\(open), country \(wifi.country ?? "not set"): \(path), from \(source)")
        return 0
    }

    /// False (said) when an old Wi-Fi file stays.
    private static func removeWiFi(in out: String) -> Bool {
        let path = out + "/" + fileName
        guard unlink(path) == 0 || errno == ENOENT else {
            Console.error("playola network-config: cannot remove \(path): \(Errno.current)")
            return false
        }
        return true
    }
}
