import PlayolaModel

/// What the station player is doing, as the appliance shows it (LEDs, status, listening sessions).
public enum PlayerState: Sendable, Equatable {
    case idle
    /// Fetching the schedule or the first audible spin's file; 0…1 is that file's download.
    case loading(Double)
    case playing(Spin)
    case paused(Spin?, PauseReason)
    case error(String)

    public var name: String {
        switch self {
        case .idle: "idle"
        case .loading: "loading"
        case .playing: "playing"
        case .paused: "paused"
        case .error: "error"
        }
    }
}

public enum PauseReason: String, Sendable, Codable {
    /// The user or a button interrupted; resuming re-joins the live position.
    case interruption
    /// The audio device went away; it resumes when the device is back.
    case deviceLost
    /// The audio device was not there when the service started; it plays when the device comes.
    case noDevice

    /// Paused for the device, not by anyone: it resumes by itself.
    public var isForTheDevice: Bool { self != .interruption }
}

public enum PlayerEvent: Sendable {
    case state(PlayerState)
    /// Something worth a log line that does not change the state (a retry, a dropped spin, a clock offset).
    case notice(String)
}
