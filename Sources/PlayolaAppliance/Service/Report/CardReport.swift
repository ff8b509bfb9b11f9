import FoundationEssentials
import PlayolaEngine
import PlayolaControl
import PlayolaApplianceSupport

/// `playola-report.txt`, the one thing of the box an owner can read on any computer: its FAT partition. What
/// runs (version and slot), what plays or why nothing does (the lines of `playola status`) and the last log
/// lines, as plain text of bounded size. The service writes it into its runtime folder; a root helper of the
/// image copies those bytes, uninterpreted, onto the card (image/files/usr/lib/playola/card-report).
enum CardReport {
    /// The log lines kept for it, and the characters kept of each.
    static let logLines = Log.keptLines
    static let logLineLength = 300
    /// The most the file holds, in bytes (the helper copies no more).
    static let limit = 32 * 1024

    static func text(_ report: StatusReport, system: String, log: [String], now: Date = Date()) -> String {
        var lines = [
            "Playola Appliance: what this box is doing",
            "Written by the box at \(PlayolaDate.format(now)), and again when that changes (at most once a minute):",
            "edits to this file are lost.",
            "",
            "System:  \(system)",
        ]
        lines += StatusText.lines(report, now: now)
        lines += ["", "The last \(min(log.count, logLines)) log lines (UTC):"]
        lines += log.suffix(logLines).map { $0.cut(to: logLineLength) }
        var text = lines.joined(separator: "\n") + "\n"
        if text.utf8.count > limit {
            text = String(decoding: text.utf8.prefix(limit - 2), as: UTF8.self) + "…\n"
        }
        return text
    }

    /// "playola 0.2.0, image 0.2.0 from slot B": the image's version (os-release's IMAGE_VERSION) and the
    /// slot U-Boot booted (`rauc.slot=` on the kernel's command line), where there are such.
    static func system(osRelease: String = "/etc/os-release", cmdline: String = "/proc/cmdline") -> String {
        var said = "playola \(PlayolaVersion.string)"
        if case .success(let bytes) = WholeFile.read(osRelease, limit: 16384),
           let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("IMAGE_VERSION=") }) {
            said += ", image " + line.dropFirst("IMAGE_VERSION=".count).filter { $0 != "\"" }
        }
        if let slot = BootSlot.read(cmdline: cmdline) { said += " from slot " + slot }
        return said
    }
}
