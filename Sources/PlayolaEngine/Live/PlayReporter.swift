import PlayolaMixer
import PlayolaModel

/// Says what played when, in the same words live and in virtual time: a spin's start or join, its end
/// (or why it stopped short), and spins that could not be played.
package struct PlayReporter {
    package let mixRate: Int
    private let report: (PlayEvent) -> Void

    package init(mixRate: Int, report: @escaping (PlayEvent) -> Void) {
        self.mixRate = mixRate
        self.report = report
    }

    package func started(_ spin: Spin, at placement: SpinPlacement, clock: ProgramClock) {
        let join = placement.joinFrame
        report(PlayEvent(time: clock.date(atFrame: placement.startFrame + join), kind: join == 0 ? .start : .join, spin: spin,
                         detail: join == 0 ? "" : "at \(seconds(join)) s into the file"))
    }

    package func failed(_ spin: Spin, at placement: SpinPlacement, clock: ProgramClock, _ detail: String) {
        report(PlayEvent(time: clock.date(atFrame: placement.startFrame + placement.joinFrame), kind: .error, spin: spin, detail: detail))
    }

    /// Spins not played because every voice was taken, said once for the lot.
    package func skipped(first spin: Spin, at placement: SpinPlacement, count: Int, capacity: Int, clock: ProgramClock) {
        failed(spin, at: placement, clock: clock, "too many overlapping spins: \(count) not played (at most \(capacity) at once)")
    }

    /// A voice that played out: its end, or an error when it failed or stopped well short of its length
    /// (the header's, else the schedule's).
    package func ended(_ voice: TimelineVoice, clock: ProgramClock) {
        let pipeline = voice.pipeline
        let played = pipeline.writeFrame
        let ended = clock.date(atFrame: voice.startFrame + played)
        let scheduled = voice.spin.audioBlock.frames(atRate: mixRate)
        let short = played + Int64(mixRate) / 2
        let detail: String
        if let failure = pipeline.failure {
            detail = "\(failure); silence after \(seconds(played)) s"
        } else if let expected = pipeline.expectedFrames, short < expected {
            detail = "\(pipeline.file): ended at \(seconds(played)) s of the \(seconds(expected)) s its header announces (truncated?)"
        } else if short < scheduled {
            detail = "\(pipeline.file): \(seconds(played)) s long, the schedule says \(seconds(scheduled)) s (truncated?)"
        } else {
            return report(PlayEvent(time: ended, kind: .end, spin: voice.spin, detail: "after \(seconds(played)) s"))
        }
        report(PlayEvent(time: ended, kind: .error, spin: voice.spin, detail: detail))
    }

    /// Frames as seconds with three decimals.
    package func seconds(_ frames: Int64) -> String {
        let millis = frames * 1000 / Int64(mixRate)
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
