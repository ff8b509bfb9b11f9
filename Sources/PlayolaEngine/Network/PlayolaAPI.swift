import FoundationEssentials
import PlayolaModel
import PlayolaSupport

/// The Playola API: schedules (public) and listening sessions (with the bearer token).
public struct PlayolaAPI: Sendable {
    /// E.g. `https://admin-api.playola.fm`; a trailing `/` or `/v1` is dropped so `/v1` is composed once.
    public let baseURL: String
    public let http: HTTPClient
    /// Waits between attempts of a schedule fetch that failed transiently (reference: 0.5, 1, 2 s).
    public var retryDelays: [Double] = [0.5, 1, 2]

    public init(baseURL: String, http: HTTPClient) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasSuffix("/v1") { base.removeLast(3) }
        self.baseURL = base
        self.http = http
    }

    public func url(_ path: String) -> String { baseURL + "/v1/" + path }

    public func scheduleURL(stationID: String) -> String {
        url("stations/\(stationID)/schedule?includeRelatedTexts=true&lockedIn=true")
    }

    /// One fetch, no retry (the 20 s refresh uses this; a failure keeps the known schedule).
    public func fetchSchedule(stationID: String) async throws(PlayolaAPIError) -> ScheduleFetch {
        let response: HTTPResponse
        let receivedAt: Double
        do {
            response = try await http.send(HTTPRequest(url: scheduleURL(stationID: stationID), headers: ["Accept: application/json"]))
            receivedAt = monotonicSeconds()
        } catch .status(404, _) {
            throw .stationNotFound(stationID)
        } catch {
            throw .network(error)
        }
        let decoded: (schedule: Schedule, dropped: [DroppedSpin])
        do {
            decoded = try Schedule.decode(response.body)
        } catch {
            throw .badSchedule(stationID: stationID, error)
        }
        guard !decoded.schedule.spins.isEmpty else { throw .emptySchedule(stationID) }
        return ScheduleFetch(schedule: decoded.schedule, dropped: decoded.dropped, serverDate: response.date, receivedAt: receivedAt)
    }

    /// A fetch retried after transient failures (5xx, DNS, connect, timeout, TLS, cut bodies).
    public func fetchScheduleRetrying(stationID: String) async throws(PlayolaAPIError) -> ScheduleFetch {
        var attempt = 0
        while true {
            do {
                return try await fetchSchedule(stationID: stationID)
            } catch {
                guard error.isTransient, attempt < retryDelays.count else { throw error }
                try? await Task.sleep(for: .seconds(retryDelays[attempt]))
                if Task.isCancelled { throw .network(.cancelled) }
                attempt += 1
            }
        }
    }
}

public enum PlayolaAPIError: Error, Equatable, CustomStringConvertible {
    case network(HTTPError)
    case stationNotFound(String)
    case badSchedule(stationID: String, ScheduleError)
    case emptySchedule(String)

    public var isTransient: Bool {
        if case .network(let error) = self { return error.isTransient }
        return false
    }

    public var description: String {
        switch self {
        case .network(let error): "schedule fetch failed: \(error)"
        case .stationNotFound(let id): "station \(id) not found (HTTP 404)"
        case .badSchedule(let id, let error): "station \(id): \(error)"
        case .emptySchedule(let id): "station \(id) has no spins scheduled"
        }
    }
}
