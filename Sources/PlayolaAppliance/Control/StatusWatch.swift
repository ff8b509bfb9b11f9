import FoundationEssentials
import Glibc
import PlayolaApplianceSupport

/// `playola status --watch`: one line for each change of what the service does (state, station, what plays,
/// volume, the device), until interrupted. The service has no push channel, so it asks twice a second: a
/// change shows within half a second. While the service cannot be reached it says so once and keeps asking,
/// so a restart shows as such.
package enum StatusWatch {
    static let interval: useconds_t = 500_000

    /// Never returns unless `changes` is given (tests): then after that many lines.
    package static func run(socketPath: String, json: Bool, changes: Int? = nil) -> Int32 {
        var last: String?
        var printed = 0
        while changes.map({ printed < $0 }) ?? true {
            let line: String
            var machine: String?
            do throws(ControlClient.Failure) {
                let report = try ControlClient.statusReport(socketPath: socketPath, timeout: ControlClient.defaultTimeout)
                line = summary(report)
                machine = ControlReply.line(report)
            } catch {
                line = "playola: \(error)"
            }
            if line != last {
                if line.hasPrefix("playola: ") {
                    Console.error(line)
                } else {
                    Console.out(json ? machine ?? line : "\(clockTime())  \(line)")
                }
                last = line
                printed += 1
            }
            usleep(interval)
        }
        return ControlClient.Exit.done
    }

    /// What is worth a line: the outcome line, with the volume and a missing device.
    static func summary(_ report: StatusReport) -> String {
        var line = StatusText.outcome(of: nil, report) + " · volume \(report.volume)%"
        if !report.deviceAvailable { line += " · no device (\(report.device))" }
        return line
    }

    private static func clockTime() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
