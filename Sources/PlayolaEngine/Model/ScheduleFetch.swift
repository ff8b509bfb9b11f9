import FoundationEssentials
import PlayolaSupport

/// A schedule as it arrived, from the Playola API or made from a local folder.
public struct ScheduleFetch: Sendable {
    public var schedule: Schedule
    public var dropped: [DroppedSpin]
    /// The server's clock when it answered (from `Date`), to catch a board that booted with a wrong clock.
    public var serverDate: Date?
    /// When the answer arrived (`monotonicSeconds()`).
    public var receivedAt: Double

    public init(schedule: Schedule, dropped: [DroppedSpin], serverDate: Date?, receivedAt: Double = monotonicSeconds()) {
        self.schedule = schedule
        self.dropped = dropped
        self.serverDate = serverDate
        self.receivedAt = receivedAt
    }

    /// The server's time now, estimated from its `Date`. The header is cut to the whole second, so the middle
    /// of that second is the best guess; and it was sent before the schedule was decoded and queued to the
    /// player, time carried forward here. Compared without both, a board's corrected clock ran about a second
    /// behind the server's (the image test measured spins changing 1.1–2.1 s late).
    public func serverNow() -> Date? {
        serverDate.map { $0.addingTimeInterval(0.5 + max(0, monotonicSeconds() - receivedAt)) }
    }
}
