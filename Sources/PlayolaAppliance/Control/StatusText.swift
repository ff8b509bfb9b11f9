import FoundationEssentials
import PlayolaEngine

/// `playola status` and the commands' one-line answers for people; `--json` prints the service's own
/// answer instead. Everything here is made from a `StatusReport` the service sent (and the time now, for
/// how long ago an error happened), nothing else.
package enum StatusText {
    /// The aligned lines of `playola status`.
    package static func lines(_ report: StatusReport, now: Date = Date()) -> [String] {
        var rows: [(String, String)] = [("State", state(report))]
        if let station = report.station { rows.append(("Station", "\(station) (\(kind(report)))")) }
        if let stream = report.stream, let problem = stream.problem { rows.append(("Stream", "reconnecting: \(problem)")) }
        if let spin = report.spin {
            var position = "\(song(spin))  \(clock(spin.position))"
            if let length = spin.length { position += " / " + clock(length) }
            rows.append((report.state == .playing ? "Playing" : "Spin", position))
        }
        if let next = report.next { rows.append(("Next", "\(song(next)) in \(clock(-next.position))")) }
        rows.append(("Device", "\(report.device) (\(device(report)))"))
        rows.append(("Volume", "\(report.volume)%"))
        if let tone = tone(report) { rows.append(("Tone", tone)) }
        if let network = report.network { rows.append(("Network", self.network(network, now: now))) }
        rows.append(("Cache", "\(bytes(report.cache.bytes)) of \(bytes(report.cache.budget)) (\(report.cache.files) files)"))
        let config = report.config
        rows.append(("Config", config.usingLastGood
            ? "\(config.file) has errors; running on the last good copy \(config.lastGood)"
            : config.file))
        if let error = config.error { rows.append(("", error)) }
        if let error = report.lastError, report.state != .error {
            rows.append(("Last error", error + (when(report.lastErrorAt, now: now).map { " (\($0))" } ?? "")))
        }
        if let update = report.update { rows.append(("Update", update)) }
        if let fleet = report.fleet { rows.append(("Fleet", self.fleet(fleet))) }
        if let buttons = report.buttons { rows.append(("Buttons", buttons)) }
        rows.append(("Uptime", clock(Double(report.uptime))))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in
            let head = label.isEmpty ? "" : label + ":"
            return head + String(repeating: " ", count: width + 2 - head.count) + value
        }
    }

    /// What now happens, after `request` succeeded and the service reports `report` (nil: what the state is).
    static func outcome(of request: ControlRequest?, _ report: StatusReport) -> String {
        switch request {
        case .volume?: return "Volume: \(report.volume)%"
        case .bass?, .treble?: return "Tone: " + (tone(report) ?? "flat")
        case .stop?: return "Stopped."
        default: break
        }
        let station = report.station ?? "no station"
        switch report.state {
        case .playing:
            guard let spin = report.spin else { return "Now playing: \(station)" }
            return "Now playing: \(station) — \(quoted(spin))"
        case .loading: return "Loading \(station)…"
        case .paused: return "Paused: \(station) (\(pauseReason(report.reason)))"
        case .error: return "\(station): error: \(report.lastError ?? "unknown")"
        case .idle: return "Stopped."
        }
    }

    /// "bass +3 dB, treble -1.5 dB"; nil when flat.
    static func tone(_ report: StatusReport) -> String? {
        let bass = report.bass ?? 0, treble = report.treble ?? 0
        guard bass != 0 || treble != 0 else { return nil }
        func dB(_ value: Double) -> String {
            (value > 0 ? "+" : "") + (value == value.rounded() ? String(Int(value)) : String(value)) + " dB"
        }
        return "bass \(dB(bass)), treble \(dB(treble))"
    }

    static func state(_ report: StatusReport) -> String {
        switch report.state {
        case .idle: "stopped"
        case .paused: "paused (\(pauseReason(report.reason)))"
        case .loading: report.progress.map { "loading (\(Int(($0 * 100).rounded()))%)" } ?? "loading"
        case .error: "error (\(report.lastError ?? "unknown"))"
        case .playing: "playing"
        }
    }

    private static func pauseReason(_ reason: PauseReason?) -> String {
        switch reason {
        case .deviceLost?: "device lost"
        case .noDevice?: "no audio device"
        case .interruption?: "interrupted"
        case nil: "paused"
        }
    }

    /// `open, 48000 Hz, s32`, or `not available`.
    private static func device(_ report: StatusReport) -> String {
        guard report.deviceAvailable else { return "not available" }
        return (["open", report.deviceRate.map { "\($0) Hz" }, report.deviceFormat] as [String?]).compactMap { $0 }.joined(separator: ", ")
    }

    /// Whether the station's server answers, and the last network failure with how long ago it was.
    private static func network(_ network: StatusReport.NetworkInfo, now: Date) -> String {
        let failure = network.lastError.map { error in error + (when(network.lastErrorAt, now: now).map { " (\($0))" } ?? "") }
        switch network.reachable {
        case false?: return "cannot reach the station's server: " + (failure ?? "no answer")
        case true?: return "the station's server answers" + (failure.map { "; last failure: " + $0 } ?? "")
        case nil: return "last failure: " + (failure ?? "none")
        }
    }

    /// `connected to mqtts://…`, or why not.
    static func fleet(_ fleet: FleetStatus) -> String {
        if fleet.connected { return "connected to \(fleet.broker)" }
        guard let problem = fleet.problem else { return "connecting to \(fleet.broker)" }
        return "cannot reach broker \(fleet.broker): \(problem)"
    }

    /// `3:12 ago, 2026-12-01 00:14:03 UTC` from the service's ISO 8601 time; nil when there is none.
    static func when(_ iso: String?, now: Date) -> String? {
        guard let iso, let date = PlayolaDate.parse(iso) else { return nil }
        let text = PlayolaDate.format(date)
        return "\(clock(now.timeIntervalSince(date))) ago, \(text.prefix(10)) \(text.dropFirst(11).prefix(8)) UTC"
    }

    private static func kind(_ report: StatusReport) -> String {
        guard let stream = report.stream else {
            switch report.stationType {
            case "playola": return "Playola station"
            case "local": return "local folder"
            case "stream": return "internet radio"
            default: return "scheduled spins"
            }
        }
        let details = [stream.name, stream.format, stream.bitrate.map { "\($0) kbit/s" }].compactMap { $0 }
        return (["internet radio"] + details).joined(separator: ", ")
    }

    /// `Artist – Title`, or the one of them a stream's title carries.
    private static func song(_ spin: StatusReport.SpinInfo) -> String {
        [spin.artist, spin.title].filter { !$0.isEmpty }.joined(separator: " – ")
    }

    /// `"Title" by Artist`.
    private static func quoted(_ spin: StatusReport.SpinInfo) -> String {
        spin.artist.isEmpty ? "\"\(spin.title)\"" : "\"\(spin.title)\" by \(spin.artist)"
    }

    /// `m:ss`, or `h:mm:ss` from an hour; a negative or non-finite number shows as 0:00.
    static func clock(_ seconds: Double) -> String {
        let total = seconds.isFinite && seconds > 0 ? Int(min(seconds, 1e9)) : 0
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
    }

    /// `12.3 MiB`: binary units, one decimal.
    static func bytes(_ count: Int64) -> String {
        var value = Double(max(count, 0))
        var unit = "B"
        for next in ["KiB", "MiB", "GiB", "TiB"] where value >= 1024 {
            value /= 1024
            unit = next
        }
        if unit == "B" { return "\(Int(value)) B" }
        return "\((value * 10).rounded() / 10) \(unit)"
    }
}
