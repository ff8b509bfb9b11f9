/// Decides, at each watchdog tick, whether the service is healthy enough to feed systemd's watchdog.
/// A process that is alive but whose audio output has stopped moving (a wedged ALSA write, a deadlocked
/// mixer) is exactly what the watchdog exists for, so liveness is judged by frames reaching the sink, not
/// by the tick itself running.
struct WatchdogGate {
    /// How long output may stand still while it should play before the gate withholds feeding. It covers
    /// the start of playback (buffer priming, ALSA's start threshold) when a tick lands just after the
    /// service stops being idle; a real stall lasts far longer.
    let stallTolerance: Double

    private var lastFrames: Int64?
    /// When output last moved, or the service was last deliberately idle: the start of any stall.
    private var lastProgress = 0.0

    init(stallTolerance: Double = 1) {
        self.stallTolerance = stallTolerance
    }

    /// `framesPlayed` counts frames the sink has taken; `deliberatelyIdle` is true while nothing should play
    /// (paused, off air, waiting for a sound device); `now` is monotonic seconds.
    mutating func shouldFeed(framesPlayed: Int64, deliberatelyIdle: Bool, now: Double) -> Bool {
        defer { lastFrames = framesPlayed }
        // A counter that went backwards belongs to a reopened sink: a fresh start, not a stall.
        let moved = lastFrames.map { framesPlayed != $0 } ?? true
        if deliberatelyIdle || moved {
            lastProgress = now
            return true
        }
        return now - lastProgress <= stallTolerance
    }
}
