import PlayolaNetwork

/// Why a schedule source has no schedule to give: each source says what went wrong in its own terms, so
/// an unreadable folder is not reported as an empty schedule from the API.
public enum ScheduleSourceError: Error, CustomStringConvertible {
    /// The Playola API could not give the station's schedule.
    case api(PlayolaAPIError)
    /// A local station's folder cannot be opened (missing, or no permission).
    case unreadableFolder(stationID: String, path: String, reason: String)
    /// A local station's folder holds nothing long enough to play.
    case nothingToPlay(stationID: String, path: String)

    /// No way to the server yet (no link, no address, no name server): worth waiting for, not an error.
    public var isNetworkUnreachable: Bool {
        switch self {
        case .api(.network(.dns)), .api(.network(.connect)), .api(.network(.timeout)): true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .api(let error): "\(error)"
        case .unreadableFolder(let id, let path, let reason): "station \(id): cannot read its folder \(path): \(reason)"
        case .nothingToPlay(let id, let path): "station \(id) (no playable audio in \(path)) has no spins scheduled"
        }
    }
}
