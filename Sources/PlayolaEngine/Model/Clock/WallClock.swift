import FoundationEssentials
import Glibc
import Synchronization

/// "Now" for the schedule: the system clock, or a simulated one in tests.
public protocol WallClock: Sendable {
    func now() -> Date
}

public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock tests move by hand.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>
    public init(_ start: Date) { current = Mutex(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

/// The schedule's clock: the system clock corrected by the server's, while they disagree.
///
/// A board without a real-time clock may boot with a wrong date until NTP answers. The server's `Date`
/// header (1 s resolution) is compared at every fetch; a difference beyond `tolerance` is played against
/// the server's time, and once the system clock is synchronised the measured difference drops back and
/// the correction with it.
///
/// The correction applies only while the station playing keeps the server's time (`applies`, set by the
/// player for each station): a local folder's schedule is made on this machine's clock, so a server's
/// `Date` a day off must not move it.
public final class ServerCorrectedClock: WallClock {
    private let base: any WallClock
    private let offset = Mutex<Double>(0)
    private let applying = Mutex<Bool>(true)
    public let tolerance: Double

    public init(base: any WallClock = SystemClock(), tolerance: Double = 5) {
        self.base = base
        self.tolerance = tolerance
    }

    public func now() -> Date { base.now().addingTimeInterval(applies ? correction : 0) }

    /// The server's correction as last measured (whether or not it applies now).
    public var correction: Double { offset.withLock { $0 } }

    /// Whether `now()` includes the correction: true while a server's schedule plays.
    public var applies: Bool {
        get { applying.withLock { $0 } }
        set { applying.withLock { $0 = newValue } }
    }

    /// Takes in the server's `Date` from a response just received; returns the new correction when it changed.
    @discardableResult
    public func observe(serverDate: Date) -> Double? {
        let difference = serverDate.timeIntervalSince(base.now())
        let corrected = abs(difference) > tolerance ? difference : 0
        return offset.withLock { current in
            guard abs(current - corrected) > 1 else { return nil }
            current = corrected
            return corrected
        }
    }
}
