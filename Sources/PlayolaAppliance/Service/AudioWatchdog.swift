/// Decides, at each watchdog tick, whether the service is healthy enough to feed systemd's watchdog.
/// A process that is alive but whose audio has stopped (a wedged ALSA write, a deadlocked mixer, a decode
/// thread stuck in a file that never finishes opening) is exactly what the watchdog exists for, so liveness
/// is judged by frames reaching the sink AND the decode thread completing passes — the render thread plays
/// silence on its own, so frames alone would keep feeding it while nothing is decoded.
struct WatchdogGate {
    /// How long output or the decode thread may stand still while it should play before the gate withholds
    /// feeding. It covers the start of playback (buffer priming, ALSA's start threshold) when a tick lands
    /// just after the service stops being idle, and the decode thread's steady pace (a pass a second while it
    /// plays files: `LiveEngine.decodeInterval`) twice; a real stall lasts far longer.
    let stallTolerance: Double

    private var lastFrames: Int64?
    private var lastDecode: Int64?
    /// When output last moved, or the service was last deliberately idle: the start of any stall.
    private var lastProgress = 0.0

    init(stallTolerance: Double = 2) {
        self.stallTolerance = stallTolerance
    }

    /// `framesPlayed` counts frames the sink has taken; `decodeProgress` counts the decode thread's passes;
    /// `deliberatelyIdle` is true while nothing should play (stopped, paused, waiting for the network or a
    /// sound device); `now` is monotonic seconds.
    mutating func shouldFeed(framesPlayed: Int64, decodeProgress: Int64, deliberatelyIdle: Bool, now: Double) -> Bool {
        defer { (lastFrames, lastDecode) = (framesPlayed, decodeProgress) }
        // A counter that went backwards belongs to a reopened sink: a fresh start, not a stall.
        let framesMoved = lastFrames.map { framesPlayed != $0 } ?? true
        let decodeMoved = lastDecode.map { decodeProgress != $0 } ?? true
        if deliberatelyIdle || (framesMoved && decodeMoved) {
            lastProgress = now
            return true
        }
        return now - lastProgress <= stallTolerance
    }
}
