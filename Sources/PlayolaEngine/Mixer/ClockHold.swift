/// How a stream voice follows its drift loop's correction (`[player] clock_hold`). The loop
/// (`DriftController`) is the same for both; only how its correction is made differs.
public enum ClockHold: String, Sendable, CaseIterable {
    /// Frames play 1:1, and one is deleted or inserted (spliced in over a few ms) each time the correction
    /// adds up to a whole frame (`FrameStuffer`): the default, for next to no CPU.
    case stuff
    /// Every frame is read at the corrected rate through a 32-tap filter (`DriftBend`): about 3.5 CPU s
    /// more per hour of audio (bench/RESULTS.md).
    case resample

    /// The stage of a stream's `DecodePipeline` that does it, for chunks of at most `maxInputFrames`.
    func makeFollower(maxInputFrames: Int) -> any DriftFollower {
        switch self {
        case .stuff: FrameStuffer(maxInputFrames: maxInputFrames)
        case .resample: DriftBend(maxInputFrames: maxInputFrames)
        }
    }
}

/// Plays a stream's frames at its drift loop's correction: on the decode side, chunk by chunk.
protocol DriftFollower: AnyObject {
    /// Input frames per output frame, minus 1: positive plays faster than the frames arrive.
    var correction: Double { get set }
    /// What the last `process` or `flush` made, interleaved stereo.
    var output: UnsafeMutablePointer<Float> { get }
    /// Takes interleaved stereo frames; returns how many are in `output`. Some may be held for the next call.
    func process(_ input: UnsafePointer<Float>, frames: Int) -> Int
    /// The stream ended: the frames still held, into `output`.
    func flush() -> Int
}

extension FrameStuffer: DriftFollower {}

extension DriftBend: DriftFollower {
    var correction: Double {
        get { step - 1 }
        set { step = 1 + newValue }
    }

    /// Its last 16 frames (0.4 ms) stay: they would need the filter's tail of silence after them.
    func flush() -> Int { 0 }
}
