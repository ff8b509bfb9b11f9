import PlayolaEngine
import Synchronization

/// How long a password attempt waits for its answer, per peer address. A wrong password is answered after
/// 1 s, the next wrong one 2 s after that, doubling to `longest`; attempts from one address queue behind each
/// other (on parallel connections too, and a right one behind the wrong ones before it), so one address tries
/// at most one password per `longest` once it has failed five times: 5,400 a day. A right password forgives
/// the address. Only the connection that tried waits; the others are served meanwhile.
final class PasswordGate: Sendable {
    static let first = 1.0
    static let longest = 16.0
    /// Addresses remembered; past it the one whose wait ended first is forgotten, so a flood of addresses
    /// costs a table of this size, never more.
    static let remembered = 256

    private struct Record {
        var failures = 0
        /// Monotonic seconds before which no attempt from this address is answered.
        var nextAnswer: Double
    }

    private let records = Mutex<[String: Record]>([:])
    private let now: @Sendable () -> Double

    init(now: @escaping @Sendable () -> Double = monotonicSeconds) { self.now = now }

    /// The seconds the attempt from `address` made now waits before it is answered, `right` or not.
    func wait(for address: String, right: Bool) -> Double {
        let now = now()
        return records.withLock { records in
            var record = records[address] ?? Record(nextAnswer: now)
            var answerAt = max(now, record.nextAnswer)
            if right {
                records[address] = nil
                return answerAt - now
            }
            record.failures += 1
            answerAt += Self.penalty(record.failures)
            record.nextAnswer = answerAt
            records[address] = record
            if records.count > Self.remembered, let oldest = records.min(by: { $0.value.nextAnswer < $1.value.nextAnswer })?.key {
                records[oldest] = nil
            }
            return answerAt - now
        }
    }

    /// 1, 2, 4, 8, 16, 16 … seconds for the first, second … failure.
    static func penalty(_ failures: Int) -> Double {
        min(longest, first * Double(1 << min(max(failures - 1, 0), 10)))
    }
}
