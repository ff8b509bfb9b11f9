import FoundationEssentials

/// Maps wall-clock time to mix frames for live playback.
///
/// The output's sample clock is the master: frames are heard at the device's pace, which drifts from
/// the wall clock (100 ppm is 8.6 s a day). The mapping is re-anchored from a measurement — this mix
/// frame is heard now — before each spin is placed, so drift never accumulates, and the correction
/// lands on a spin boundary, where nothing already playing moves.
public struct ProgramClock: Sendable, Equatable {
    public let rate: Double
    public private(set) var anchorFrame: Int64
    public private(set) var anchorTime: Date

    public init(rate: Int, frame: Int64 = 0, heardAt time: Date) {
        self.rate = Double(rate)
        anchorFrame = frame
        anchorTime = time
    }

    /// The mix frame that will be heard at `date`.
    public func frame(at date: Date) -> Int64 {
        anchorFrame + Int64((date.timeIntervalSince(anchorTime) * rate).rounded())
    }

    /// When mix frame `frame` will be heard.
    public func date(atFrame frame: Int64) -> Date {
        anchorTime.addingTimeInterval(Double(frame - anchorFrame) / rate)
    }

    /// `frame` is being heard at `date` (frames written minus the device's delay, read now).
    public mutating func reanchor(frame: Int64, heardAt date: Date) {
        anchorFrame = frame
        anchorTime = date
    }
}
