import FoundationEssentials
import PlayolaModel
import PlayolaNetwork

/// Where a station's schedule comes from: the Playola API, or a local folder played as a schedule.
/// Both go through the same player, cache-aware downloader, voices and mixer.
public protocol ScheduleSource: Sendable {
    /// A stable name for logs and listening sessions.
    var stationID: String { get }
    /// Whether listening to it is reported to the Playola API.
    var reportsListening: Bool { get }
    /// Whether its airtimes are the server's time: only then does the clock correction from the server's
    /// `Date` apply (a folder's schedule is built on this machine's clock).
    var followsServerTime: Bool { get }
    /// The local file a spin's URL names, for a source whose files are on this machine; nil for anything
    /// to download (the downloader fetches http and https only).
    func localFile(for url: String) -> String?
    /// The schedule now; `retrying` retries transient failures (the first fetch of a play does).
    func fetchSchedule(retrying: Bool) async throws(ScheduleSourceError) -> ScheduleFetch
}

extension ScheduleSource {
    public var followsServerTime: Bool { false }
    public func localFile(for url: String) -> String? { nil }
}

/// A Playola station, by id, from the API.
public struct PlayolaStationSource: ScheduleSource {
    public let api: PlayolaAPI
    public let stationID: String
    public var reportsListening: Bool { true }
    public var followsServerTime: Bool { true }

    public init(api: PlayolaAPI, stationID: String) {
        self.api = api
        self.stationID = stationID
    }

    public func fetchSchedule(retrying: Bool) async throws(ScheduleSourceError) -> ScheduleFetch {
        do {
            return retrying ? try await api.fetchScheduleRetrying(stationID: stationID) : try await api.fetchSchedule(stationID: stationID)
        } catch {
            throw .api(error)
        }
    }
}
