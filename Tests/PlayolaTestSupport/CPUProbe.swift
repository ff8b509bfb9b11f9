import Foundation
import Glibc

/// CPU time (user and system) used so far: by the whole process (getrusage), or by the engine's own named
/// threads (`playola-render`, `playola-decode`, …), read per thread from /proc so that work other tests left
/// in the process (servers, players being torn down) is not counted against the engine.
package enum CPUProbe {
    package static func processSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Seconds of CPU per engine thread now alive, by thread id; the difference of two readings is what the
    /// engine's threads used between them (a thread that ended in between is not counted).
    package static func engineThreads() -> [Int: Double] {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var seconds: [Int: Double] = [:]
        for task in tasks {
            guard let id = Int(task),
                  let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                  comm.hasPrefix("playola-"),
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After the name in parentheses: state is field 3, utime 14 and stime 15 (proc_pid_stat(5)).
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            seconds[id] = (user + system) / ticksPerSecond
        }
        return seconds
    }

    package static func engineThreadSeconds(since before: [Int: Double]) -> Double {
        engineThreads().reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
    }
}
