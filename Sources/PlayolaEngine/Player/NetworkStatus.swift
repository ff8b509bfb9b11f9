import FoundationEssentials

/// Whether the playing station's server answers — the Playola API for a Playola station, the stream's
/// server for internet radio — and the last network failure with its time. A local folder has no server.
public struct NetworkStatus: Sendable, Equatable {
    /// nil until the station's server was asked (and for a local folder or no station).
    public var reachable: Bool?
    /// The last network failure of any station since the service started, and when it happened.
    public var lastError: String?
    public var lastErrorAt: Date?

    public init(reachable: Bool? = nil, lastError: String? = nil, lastErrorAt: Date? = nil) {
        self.reachable = reachable
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
    }

    /// The server could not be reached, or gave no usable answer: `problem` is why.
    mutating func failed(_ problem: String, at date: Date = Date()) {
        reachable = false
        lastError = problem
        lastErrorAt = date
    }
}

extension StationPlayer {
    /// The server answered.
    func networkReached() {
        guard network.reachable != true else { return }
        if network.reachable == false { notice("\(station?.name ?? "the station")'s server answers again") }
        network.reachable = true
    }

    /// The server did not answer (or gave no usable answer).
    func networkFailed(_ problem: String) {
        network.failed(problem)
    }

    /// No station, or one without a server: nothing to reach.
    func networkForgotten() {
        network.reachable = nil
    }
}
