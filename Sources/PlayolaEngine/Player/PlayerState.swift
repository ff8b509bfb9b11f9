import FoundationEssentials
import PlayolaModel

/// What the station player is doing, as the appliance shows it (LEDs, status, listening sessions).
public enum PlayerState: Sendable, Equatable {
    case idle
    /// Fetching the schedule or the first audible spin's file; 0…1 is that file's download.
    case loading(Double)
    case playing(NowPlaying)
    case paused(NowPlaying?, PauseReason)
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

/// What sounds: a spin of a schedule (a Playola station, a local folder), or what a stream announces.
public enum NowPlaying: Sendable, Equatable {
    case spin(Spin)
    case stream(Announcement)

    /// What is said of it: a spin's title, artist, station and airtime.
    public var announcement: Announcement {
        switch self {
        case .spin(let spin):
            Announcement(station: spin.stationID, title: spin.audioBlock.title, artist: spin.audioBlock.artist, since: spin.airtime)
        case .stream(let announcement): announcement
        }
    }

    /// Seconds it plays; nil for a stream (and a spin of unknown length).
    public var length: Double? {
        guard case .spin(let spin) = self, spin.audioBlock.durationMS > 0 else { return nil }
        return Double(spin.audioBlock.durationMS) / 1000
    }
}

/// A title on air: a stream's (the station's name when it announces none) or a spin's.
public struct Announcement: Sendable, Equatable {
    /// The station it plays for: a schedule's station ID, a stream's name.
    public var station: String
    public var title: String
    public var artist: String
    /// When it began to sound: a spin's airtime, the moment a stream's connection sounded.
    public var since: Date
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
    /// Whether the station's server answers changed, or a new network failure (`StationPlayer.network`):
    /// pushed to the control socket's subscribers like a state.
    case network(NetworkStatus)
}
