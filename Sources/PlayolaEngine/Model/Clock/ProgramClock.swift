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
    /// `1/weight` part at a time, and never faster than `slew` (seconds per second): the clock slews, as NTP
    /// does, and steps only for a reading further off than `jump` frames (the device stalled, a long xrun).
    /// One reading is off by as much as a render period (when the device's delay was read against when the
    /// reading is used), and spins placed on single readings moved against each other by as much: the two
    /// of a crossfade up to 90 ms apart (HookTests). A device's first readings may lie off the line of its
    /// later ones: the test card's pipe takes 0.4–0.5 s in a burst that its delay does not count, and the
    /// spins placed at the start on the first reading then met the next ones up to 0.3 s late. Slewed, one
    /// spin moves against the next by at most `slew` times their distance (HookTests' crossfades: within
    /// 7 ms). Drift (100 ppm is 8.6 s a day) is a twentieth of the slew: followed within a few milliseconds.
    public mutating func follow(frame: Int64, heardAt date: Date, weight: Int64 = 32, jump: Int64, slew: Double = 0.002) {
        let predicted = self.frame(at: date)
        let error = frame - predicted
        if abs(error) > jump {
            anchorFrame = frame
        } else {
            let limit = Int64((max(date.timeIntervalSince(anchorTime), 0) * rate * slew).rounded(.up))
            anchorFrame = predicted + min(max(error / max(weight, 1), -limit), limit)
        }
        anchorTime = date
    }
}
