import FoundationEssentials
import Glibc
import PlayolaEngine
import Synchronization

/// Log lines to stderr with syslog priority prefixes (`<3>`…`<7>`), which journald turns into
/// priorities. Rate-limited per message key: a device that keeps failing says so a few times, then once
/// a minute with a count, so the journal never fills with a storm.
package final class Log: Sendable {
    package enum Level: Int, Comparable, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    static let shared = Log()
    package let threshold = Atomic<Int>(Level.info.rawValue)
    private let limits = Mutex<[String: (count: Int, windowStart: Double, suppressed: Int)]>([:])
    /// Lines per key per window before suppression.
    private let burst = 3
    private let window = 60.0
    /// How many of the last lines are kept, for the card's report.
    package static let keptLines = 50
    /// The last lines written, with their time, for the card's report (CardReport).
    private let kept = Mutex<[String]>([])

    package func callAsFunction(_ level: Level, _ message: String, key: String? = nil) {
        guard level.rawValue <= threshold.load(ordering: .relaxed) else { return }
        var line = message
        if let key {
            let now = monotonicSeconds()
            var emit = true
            var note = ""
            limits.withLock { table in
                var entry = table[key] ?? (0, now, 0)
                if now - entry.windowStart > window {
                    if entry.suppressed > 0 { note = " (\(entry.suppressed) more like this in the last minute)" }
                    entry = (0, now, 0)
                }
                entry.count += 1
                if entry.count > burst {
                    entry.suppressed += 1
                    emit = false
                }
                table[key] = entry
            }
            guard emit else { return }
            line += note
        }
        // Escaped here, where every line passes, rather than at each call: titles, ICY `StreamTitle`s, server
        // errors and file names reach messages by many routes, and one newline followed by `<0>` would be a
        // journal line of its own at emergency priority. Cut here too, for the same reason: a tag's title or a
        // server's error can be kilobytes.
        let text = LogField.escaped(line.cut(to: Self.maxLine))
        Console.error("<\(level.rawValue)>\(text)")
        let stamped = PlayolaDate.format(Date()) + " " + text
        kept.withLock { lines in
            lines.append(stamped)
            if lines.count > Log.keptLines { lines.removeFirst(lines.count - Log.keptLines) }
        }
    }

    /// The last lines written (at most `Log.keptLines`), oldest first.
    package func recent() -> [String] { kept.withLock { $0 } }

    /// The longest line written, in characters.
    static let maxLine = 1000
}

package let log = Log.shared
