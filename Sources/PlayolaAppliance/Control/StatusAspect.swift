/// What of the service's status a change is about; `subscribe` lines name them in `changed`, in this order.
package enum StatusAspect: String, Sendable, CaseIterable {
    /// Playing, loading, paused (and why), stopped, error (and which).
    case state
    case station
    /// What plays: a spin, or a stream's title.
    case spin
    case volume
    /// The audio device there or not, and what it negotiated.
    case device
    /// Whether the station's server answers, and the last network failure.
    case network
    /// The spins coming up (MPD's queue).
    case queue
}

/// The part of a `StatusReport` each aspect is, compared between two reports: positions and uptime move
/// all the time and are no change.
package struct StatusDigest: Equatable, Sendable {
    private var parts: [StatusAspect: [String]]

    package init(_ report: StatusReport) {
        let spin = report.spin.map(Self.identity) ?? []
        parts = [
            .state: [report.state.rawValue, report.reason?.rawValue ?? "", report.state == .error ? report.lastError ?? "" : ""],
            .station: [report.station ?? ""],
            .spin: spin,
            .volume: [String(report.volume)],
            .device: ["\(report.deviceAvailable)", report.deviceRate.map(String.init) ?? "", report.deviceFormat ?? ""],
            .network: [report.network?.reachable.map { "\($0)" } ?? "", report.network?.lastError ?? "", report.network?.lastErrorAt ?? ""],
            .queue: spin + (report.upcoming ?? []).flatMap(Self.identity),
        ]
    }

    /// A spin by its id when it has one; a stream's title by what it says and since when.
    private static func identity(_ spin: StatusReport.SpinInfo) -> [String] {
        [spin.id ?? "", spin.title, spin.artist, spin.airtime]
    }

    /// What differs from `old`, in `StatusAspect` order; everything when there is no `old`.
    package func changes(since old: StatusDigest?) -> [StatusAspect] {
        StatusAspect.allCases.filter { old?.parts[$0] != parts[$0] }
    }
}
