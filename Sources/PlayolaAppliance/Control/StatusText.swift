/// `playola status` and the commands' one-line answers for people; `--json` prints the service's own
/// answer instead. Everything here is made from a `StatusReport` the service sent, nothing else.
enum StatusText {
    /// The aligned lines of `playola status`.
    static func lines(_ report: StatusReport) -> [String] {
        var rows: [(String, String)] = [("State", state(report))]
        if let station = report.station { rows.append(("Station", "\(station) (\(kind(report)))")) }
        if let stream = report.stream, let problem = stream.problem { rows.append(("Stream", "reconnecting: \(problem)")) }
        if let spin = report.spin {
            var position = "\(song(spin))  \(clock(spin.position))"
            if let length = spin.length { position += " / " + clock(length) }
            rows.append((report.state == "playing" ? "Playing" : "Spin", position))
        }
        if let next = report.next { rows.append(("Next", "\(song(next)) in \(clock(-next.position))")) }
        rows.append(("Device", "\(report.device) (\(report.deviceAvailable ? "open" : "not available"))"))
        rows.append(("Volume", "\(report.volume)%"))
        rows.append(("Cache", "\(bytes(report.cache.bytes)) of \(bytes(report.cache.budget)) (\(report.cache.files) files)"))
        let config = report.config
        rows.append(("Config", config.usingLastGood
            ? "\(config.file) has errors; running on the last good copy \(config.lastGood)"
            : config.file))
        if let error = config.error { rows.append(("", error)) }
        if let error = report.lastError, report.state != "error" { rows.append(("Last error", error)) }
        rows.append(("Uptime", clock(Double(report.uptime))))
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { label, value in
            let head = label.isEmpty ? "" : label + ":"
            return head + String(repeating: " ", count: width + 2 - head.count) + value
        }
    }

    /// What now happens, after `command` succeeded and the service reports `report`.
    static func outcome(of command: String, _ report: StatusReport) -> String {
        switch command {
        case "volume": return "Volume: \(report.volume)%"
        case "stop": return "Stopped."
        default: break
        }
        let station = report.station ?? "no station"
        switch report.state {
        case "playing":
            guard let spin = report.spin else { return "Now playing: \(station)" }
            return "Now playing: \(station) — \(quoted(spin))"
        case "loading": return "Loading \(station)…"
        case "paused": return "Paused: \(station) (\(pauseReason(report.reason)))"
        case "error": return "\(station): error: \(report.lastError ?? "unknown")"
        default: return "Stopped."
        }
    }

    static func state(_ report: StatusReport) -> String {
        switch report.state {
        case "idle": "stopped"
        case "paused": "paused (\(pauseReason(report.reason)))"
        // A schedule asked for while the device is missing waits in loading until the device is back.
        case "loading" where !report.deviceAvailable: "waiting for the audio device"
        case "loading": report.progress.map { "loading (\(Int(($0 * 100).rounded()))%)" } ?? "loading"
        case "error": "error (\(report.lastError ?? "unknown"))"
        default: report.state
        }
    }

    private static func pauseReason(_ reason: String?) -> String {
        switch reason {
        case "deviceLost": "device lost"
        case "interruption": "interrupted"
        default: reason ?? "paused"
        }
    }

    private static func kind(_ report: StatusReport) -> String {
        guard let stream = report.stream else { return "scheduled spins" }
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
