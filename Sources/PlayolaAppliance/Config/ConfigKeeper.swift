import FoundationEssentials
import Glibc
import PlayolaApplianceSupport

/// What `playola status` says about the configuration in use.
package struct ConfigStatus: Codable, Sendable, Equatable {
    /// The INI the service reads (`ConfigLocation`).
    package var file: String
    /// Where the last INI that passed the checks is kept.
    package var lastGood: String
    /// True when `file`, as it is now, has errors and the service runs on the last good configuration.
    package var usingLastGood: Bool
    /// The first error in `file`, as `FILE:LINE: error: MESSAGE`, while it has errors.
    package var error: String?
}

/// Reads the INI where the user edits it and keeps a copy of the last one that passed the checks, in a
/// place that does not depend on that file (the writable state partition), so a broken edit never leaves
/// the appliance without a configuration: it runs on the last good one and says why.
package struct ConfigKeeper {
    package static let defaultLastGood = "/var/lib/playola/last-good.ini"

    /// `--config FILE`, or nil to search (`ConfigLocation`).
    let explicitPath: String?
    let lastGoodPath: String
    /// The last failure to keep the copy that was logged: a read-only disk is reported once, not at every read.
    private var reportedFailure: WholeFile.WriteError?

    package init(explicitPath: String?, lastGoodPath: String?) {
        self.explicitPath = explicitPath
        self.lastGoodPath = lastGoodPath ?? Self.defaultLastGood
    }

    /// At start: the INI if it passes the checks, else the last good copy, else nil (the reasons logged).
    package mutating func readAtStart() -> (config: ApplianceConfig, status: ConfigStatus)? {
        WholeFile.removeLeftovers(of: lastGoodPath)
        let (path, bytes, config, firstError) = readAndCheck()
        if let config, let bytes {
            keep(bytes)
            return (config, ConfigStatus(file: path, lastGood: lastGoodPath, usingLastGood: false))
        }
        let (lastGood, lastGoodDiagnostics) = ApplianceConfig.load(path: lastGoodPath)
        guard let lastGood else {
            if case .failure(.missing) = WholeFile.read(lastGoodPath, limit: INIFile.maximumSize) {
                log(.error, "\(path) has errors and there is no last good configuration (\(lastGoodPath)): "
                    + "not starting; fix it (playola check-config \(path)) and start again")
            } else {
                logDiagnostics(lastGoodDiagnostics)
                log(.error, "\(path) has errors, and so has the last good configuration \(lastGoodPath): not starting")
            }
            return nil
        }
        log(.error, "\(path) has errors: playing the last good configuration, \(lastGoodPath)")
        return (lastGood, ConfigStatus(file: path, lastGood: lastGoodPath, usingLastGood: true, error: firstError))
    }

    /// SIGHUP: the INI (searched for again) if it passes the checks, else nil and the configuration in
    /// use stays; either way the status to show.
    package mutating func reread() -> (config: ApplianceConfig?, status: ConfigStatus) {
        let (path, bytes, config, firstError) = readAndCheck()
        if let config, let bytes {
            keep(bytes)
            log(.info, "\(path) re-read and applied")
            return (config, ConfigStatus(file: path, lastGood: lastGoodPath, usingLastGood: false))
        }
        log(.error, "\(path) has errors: keeping the configuration in use (the last good one)")
        return (nil, ConfigStatus(file: path, lastGood: lastGoodPath, usingLastGood: true, error: firstError))
    }

    /// The configuration the service runs on, as far as a client can tell without asking it (to find
    /// its socket): the INI when it passes the checks, else the last good copy, read without logging.
    package func configForClients() -> ApplianceConfig? {
        ApplianceConfig.load(path: ConfigLocation.resolve(explicit: explicitPath).path).config
            ?? ApplianceConfig.load(path: lastGoodPath).config
    }

    /// The INI's path, its bytes (nil when unreadable), the config they make (nil on an error) and the
    /// first error; every finding is logged as `FILE:LINE: …`.
    private func readAndCheck() -> (path: String, bytes: [UInt8]?, config: ApplianceConfig?, firstError: String?) {
        let location = ConfigLocation.resolve(explicit: explicitPath)
        for (path, reason) in location.unreachable {
            log(.warning, "\(path) cannot be looked at (\(reason)); reading \(location.path)")
        }
        let path = location.path
        let bytes: [UInt8]
        do throws(ConfigError) {
            bytes = try INIFile.read(path)
        } catch {
            let diagnostic = Diagnostic.error(error.message, file: path, line: error.line)
            logDiagnostics([diagnostic])
            return (path, nil, nil, diagnostic.description)
        }
        let (config, diagnostics) = ApplianceConfig.load(bytes: bytes, file: path)
        logDiagnostics(diagnostics)
        return (path, bytes, config, diagnostics.first { $0.severity == .error }?.description)
    }

    private func logDiagnostics(_ diagnostics: [Diagnostic]) {
        for diagnostic in Diagnostic.bounded(diagnostics) { log(diagnostic.severity == .error ? .error : .warning, diagnostic.description) }
    }

    /// Replaces the last good copy with `bytes` when they differ from it (mode 0600: the INI may hold the
    /// token and the Wi-Fi passphrase).
    private mutating func keep(_ bytes: [UInt8]) {
        do throws(WholeFile.WriteError) {
            guard try Self.keep(bytes, at: lastGoodPath) else { return }
            reportedFailure = nil
            log(.info, "kept as the last good configuration: \(lastGoodPath)")
        } catch {
            if error != reportedFailure { log(.warning, "the last good configuration is not kept: \(error)") }
            reportedFailure = error
        }
    }

    /// Replaces the copy at `path` with `bytes` unless it holds them already (the card is spared a write at
    /// every start); true when it wrote.
    package static func keep(_ bytes: [UInt8], at path: String) throws(WholeFile.WriteError) -> Bool {
        if case .success(let kept) = WholeFile.read(path, limit: INIFile.maximumSize), [UInt8](kept) == bytes { return false }
        try WholeFile.write(Data(bytes), to: path, mode: 0o600)
        return true
    }
}
