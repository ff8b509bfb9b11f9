import PlayolaControl
/// When `playola-report.txt` is written: once the service has settled after its start (it plays, is paused or
/// stopped, or has failed; or a minute has passed whatever it does), then only when what it does changes,
/// and at most once a minute, so a card is not worn by a radio that just plays, nor by one whose error flaps.
struct ReportSchedule {
    /// What, changed, is worth a new report: never the song or the position, which change all day.
    struct Key: Equatable {
        var state: StatusReport.State
        var station: String?
        var reason: String?
        var deviceAvailable: Bool
        var lastError: String?
        var networkError: String?
        var configError: String?
        var update: String?

        init(_ report: StatusReport) {
            state = report.state
            station = report.station
            reason = report.reason.map { "\($0)" }
            deviceAvailable = report.deviceAvailable
            lastError = report.lastError
            networkError = report.network?.lastError
            configError = report.config.error
            update = report.update
        }
    }

    static let interval = 60.0

    let started: Double
    private(set) var written: (at: Double, key: Key)?

    init(started: Double) { self.started = started }

    /// Whether to write the report now (seconds on a monotonic clock); if so, it counts as written.
    mutating func due(_ key: Key, now: Double) -> Bool {
        if let written {
            guard key != written.key, now - written.at >= Self.interval else { return false }
        } else {
            guard key.state != .loading || now - started >= Self.interval else { return false }
        }
        written = (now, key)
        return true
    }
}
