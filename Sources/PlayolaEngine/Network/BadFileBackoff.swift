import PlayolaSupport


/// URLs whose file failed validation, and until when they are not fetched again: a bad file on the CDN
/// is downloaded once per backoff, not at every schedule refresh. Each new failure of the same URL doubles
/// its wait (to `cap`). Bounded: past `capacity` URLs the one whose wait ends first is forgotten.
struct BadFileBackoff {
    let backoff: Backoff
    let capacity: Int
    private var entries: [String: (until: Double, failures: Int)] = [:]

    init(_ backoff: Backoff, capacity: Int = 256) {
        self.backoff = backoff
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// When the URL may be fetched again (monotonic seconds), if it is backed off at `now`.
    func blocked(_ url: String, now: Double) -> Double? {
        guard let entry = entries[url], entry.until > now else { return nil }
        return entry.until
    }

    /// Notes a failure at `now`; returns the seconds it is backed off for.
    @discardableResult
    mutating func failed(_ url: String, now: Double) -> Double {
        let failures = (entries[url]?.failures ?? 0) + 1
        let wait = backoff.delay(attempt: failures)
        if entries[url] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.until > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.until < $1.value.until }) {
                entries[soonest.key] = nil
            }
        }
        entries[url] = (now + wait, failures)
        return wait
    }
}
