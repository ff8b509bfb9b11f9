import FoundationEssentials

/// Maps wall-clock time to mix frames for live playback.
///
/// The output's sample clock is the master: frames are heard at the device's pace, which drifts from
/// the wall clock (100 ppm is 8.6 s a day). The mapping follows a measurement — this mix frame is heard
/// now — at every look of the decode thread (`follow`), so drift never accumulates; a correction moves
/// only spins placed after it, so nothing already playing moves.
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

    /// Takes in a reading, `frame` heard at `date` (frames written minus the device's delay, read then), a
    /// `1/weight` part at a time. One reading is off by as much as a render period (when the device's delay
    /// was read against when the reading is used), and spins placed on single readings moved against each
    /// other by as much: the two of a crossfade up to 90 ms apart (HookTests). Drift moves the readings by a
    /// fraction of a millisecond from one look to the next, which this follows within a few; a reading
    /// further off than `jump` frames (the device stalled, a long xrun) is taken whole.
    public mutating func follow(frame: Int64, heardAt date: Date, weight: Int64 = 32, jump: Int64) {
        let predicted = self.frame(at: date)
        let error = frame - predicted
        anchorFrame = abs(error) > jump ? frame : predicted + error / weight
        anchorTime = date
    }
}
