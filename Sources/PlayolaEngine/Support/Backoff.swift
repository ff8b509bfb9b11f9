/// A capped doubling wait between attempts: `first`, twice that, four times…, never more than `cap`. The
/// downloader's retries, its memory of bad files and a stream's reconnects all wait this way.
public struct Backoff: Sendable, Equatable {
    public var first: Double
    public var cap: Double

    public init(first: Double, cap: Double) {
        self.first = first
        self.cap = cap
    }

    /// The wait before retry `attempt` (1 for the first); the doubling stops at 2^20, far past any cap.
    public func delay(attempt: Int) -> Double {
        min(cap, first * Double(1 << min(max(0, attempt - 1), 20)))
    }
}
