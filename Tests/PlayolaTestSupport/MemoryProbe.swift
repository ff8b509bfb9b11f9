import Foundation

/// Peak resident memory of this process, from /proc/self/status. `resetPeak` makes the kernel forget the
/// peak so far (clear_refs 5), so a measurement covers only what runs after it.
package enum MemoryProbe {
    static func kilobytes(_ field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Resets the peak to the present size; returns the present size (kB).
    package static func resetPeak() -> Int {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return kilobytes("VmRSS")
    }

    /// How far the peak rose above `baseline` (kB), in MB.
    package static func peakGrowthMB(since baseline: Int) -> Double { Double(kilobytes("VmHWM") - baseline) / 1024 }
}
