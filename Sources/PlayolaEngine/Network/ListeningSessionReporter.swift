import FoundationEssentials
import PlayolaSupport

/// Reports listening to the Playola API, driven by the playback state (reference §3.3):
/// `playing` starts a session for the station and a heartbeat every 10 s measured from the start of each
/// POST; `paused`, `idle` and `error` end it — `/end` only after a start succeeded; `loading` changes
/// nothing. All POSTs go through one serial chain, so an `/end` is never overtaken by a late heartbeat.
/// No token: no reports, and no error.
public actor ListeningSessionReporter {
    public struct Report: Sendable, Equatable {
        public enum Kind: String, Sendable { case heartbeat, end }
        public var kind: Kind
        public var stationID: String?
        public var outcome: Outcome
    }

    /// How a POST went: sent, or why not.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        case ok
        case failed(String)

        public var description: String {
            if case .failed(let reason) = self { reason } else { "ok" }
        }
    }

    private let api: PlayolaAPI
    private let deviceID: String
    private let token: @Sendable () -> String?
    public let interval: Double
    private var stationID: String?
    private var started = false
    private var heartbeat: Task<Void, Never>?
    /// The tail of the serial chain of POSTs.
    private var chain: Task<Void, Never>?
    private var refreshTimes: [Double] = []
    private let onReport: @Sendable (Report) -> Void

    /// `token` is read before every request (a token file re-read on 401 is the refresh).
    public init(
        api: PlayolaAPI, deviceID: String, interval: Double = 10, token: @escaping @Sendable () -> String?,
        onReport: @escaping @Sendable (Report) -> Void = { _ in }
    ) {
        self.api = api
        self.deviceID = deviceID
        self.interval = interval
        self.token = token
        self.onReport = onReport
    }

    /// Follows the player: a station while audio plays, nil otherwise (loading: call nothing).
    public func playing(stationID: String?) {
        guard stationID != self.stationID else { return }
        heartbeat?.cancel()
        heartbeat = nil
        self.stationID = stationID
        if let stationID {
            // A station switch keeps one device session: the new heartbeat replaces the old, no /end between.
            heartbeat = Task { [weak self] in
                while !Task.isCancelled {
                    let began = monotonicSeconds()
                    await self?.enqueue(.heartbeat, stationID: stationID)?.value
                    let elapsed = monotonicSeconds() - began
                    try? await Task.sleep(for: .seconds(max(0, (self?.interval ?? 10) - elapsed)))
                }
            }
        } else {
            enqueue(.end, stationID: nil) // sent only if a start succeeded, decided in turn in the chain
        }
    }

    /// Waits until every POST queued so far has finished (tests, shutdown).
    public func flush() async { await chain?.value }

    @discardableResult
    private func enqueue(_ kind: Report.Kind, stationID: String?) -> Task<Void, Never>? {
        guard token() != nil else { return nil }
        let previous = chain
        let task = Task { [weak self] in
            await previous?.value
            await self?.post(kind, stationID: stationID)
        }
        chain = task
        return task
    }

    private func post(_ kind: Report.Kind, stationID: String?) async {
        // A heartbeat for a station we have since left is dropped, not sent late; an /end without a
        // session that started is not sent at all.
        if kind == .heartbeat, stationID != self.stationID { return }
        if kind == .end {
            guard started else { return }
            started = false
        }
        let body: [String: String] = kind == .end ? ["deviceId": deviceID] : ["deviceId": deviceID, "stationId": stationID ?? ""]
        let path = kind == .end ? "listeningSessions/end" : "listeningSessions"
        let outcome = await send(path: path, body: body, mayRefresh: kind == .heartbeat)
        if kind == .heartbeat, outcome == .ok, self.stationID == stationID { started = true }
        onReport(Report(kind: kind, stationID: stationID, outcome: outcome))
    }

    private func send(path: String, body: [String: String], mayRefresh: Bool) async -> Outcome {
        let payload = (try? JSONEncoder().encode(body)) ?? Data()
        while true {
            guard let token = token() else { return .failed("no token") }
            let request = HTTPRequest(
                url: api.url(path), method: .post,
                headers: ["Authorization: Bearer \(token)", "Content-Type: application/json"], body: payload)
            do {
                _ = try await api.http.send(request)
                return .ok
            } catch .status(401, _) where mayRefresh {
                // Re-read the token source and retry once; at most 3 refreshes in 300 s.
                let now = monotonicSeconds()
                refreshTimes = refreshTimes.filter { now - $0 < 300 }
                guard refreshTimes.count < 3 else { return .failed("unauthorized (token refresh limit reached)") }
                refreshTimes.append(now)
                continue
            } catch {
                return .failed("\(error)")
            }
        }
    }
}
