import FoundationEssentials
import PlayolaSchedule
import PlayolaStreaming

/// The buttons' toggles, decided by the player on its own state in the same turn that acts on it (as MPD
/// decides pause under its player lock): a caller that read the state one hop earlier could act on a state
/// already gone — a stop between its read and its command, a device that came back.
extension StationPlayer {
    /// What to play when a toggle plays: a schedule (as it aired at `at`, nil: live) or a stream.
    public enum PlayRequest: Sendable {
        case schedule(any ScheduleSource, at: Date?)
        case stream(StreamStation)
    }

    /// What a stop toggle did.
    public enum StopToggle: Sendable, Equatable {
        case stopped
        case played
        /// Stopped already, and nothing to play.
        case nothing
    }

    public func play(_ request: PlayRequest) {
        switch request {
        case .schedule(let source, let date): play(source, at: date)
        case .stream(let stream): play(stream: stream)
        }
    }

    /// The stop button: a station that is on (playing, loading, paused, in error) stops; with none, `request`
    /// plays.
    @discardableResult
    public func toggleStop(orPlay request: PlayRequest?) -> StopToggle {
        if station != nil {
            stop()
            return .stopped
        }
        guard let request else { return .nothing }
        play(request)
        return .played
    }

    /// The interrupt button: pauses, and a second press resumes at the live position. Decided by whether a
    /// resume is armed, not by the state's name: paused for want of a device, a press is a pause that holds when
    /// the device is back; interrupted while loading (the state says idle), a press resumes.
    public func toggleInterruption() {
        if resumeArmed { resumeAfterInterruption() } else { pauseForInterruption(.interruption) }
    }
}
