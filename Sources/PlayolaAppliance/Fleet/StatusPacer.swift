/// The retained status at most once a `interval` (a second), the newest winning: a burst of changes (a
/// station change is state, station, spin and queue within a few hundred milliseconds) is one publication
/// at once and one more, the last, when the interval is up; nothing at the end of a burst is lost. A value
/// on the times it is given, so a test drives it on a scripted clock.
package struct StatusPacer: Sendable, Equatable {
    package let interval: Double
    private var lastSent = -Double.infinity
    /// The newest status, sent or not: sent again at each connect.
    private(set) var latest: String?
    /// The newest status not yet sent.
    private var held: String?

    package init(interval: Double = 1) { self.interval = interval }

    /// A new status: the line to publish now, or nil when it waits (replacing what waited).
    package mutating func offer(_ line: String, now: Double) -> String? {
        latest = line
        guard now - lastSent >= interval else {
            held = line
            return nil
        }
        held = nil
        lastSent = now
        return line
    }

    /// When what waits may go (monotonic seconds); nil when nothing waits.
    package var due: Double? { held == nil ? nil : lastSent + interval }

    /// What waits, if its time has come.
    package mutating func take(now: Double) -> String? {
        guard let held, now - lastSent >= interval else { return nil }
        self.held = nil
        lastSent = now
        return held
    }

    /// A new connection: the newest status at once (the broker's retained copy may be from before a restart).
    package mutating func resend(now: Double) -> String? {
        guard let latest else { return nil }
        held = nil
        lastSent = now
        return latest
    }
}
