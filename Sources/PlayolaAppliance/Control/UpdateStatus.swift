import FoundationEssentials
import Glibc
import PlayolaApplianceSupport

/// The firmware update's line in `playola status`: what the image's root-side update units
/// (`/usr/lib/playola/firmware-update`) last said. While an install runs its progress is in RAM
/// (`/run/playola-update/status`: written each percent, so never on the card); its outcome lasts on the
/// persistent partition (`/var/lib/persistent/update/status`), which both slots share, so a board that
/// rolled back still says why. Each file holds one line written by root; the service only reads it, and
/// shows at most its first line, cut and stripped of control characters.
package enum UpdateStatus {
    /// The files, first found wins; `PLAYOLA_UPDATE_STATUS` (colon-separated) replaces them in tests.
    static var files: [String] {
        if let paths = getenv("PLAYOLA_UPDATE_STATUS").map({ String(cString: $0) }), !paths.isEmpty {
            return paths.split(separator: ":").map(String.init)
        }
        return ["/run/playola-update/status", "/var/lib/persistent/update/status"]
    }

    /// The outcome's file, which lasts (the last of `files`).
    package static var outcomeFile: String { files.last ?? "/var/lib/persistent/update/status" }

    static let longest = 200

    /// The line to show, nil when no update ever ran (a package install has neither file).
    package static func current(files: [String] = files) -> String? {
        for path in files {
            guard case .success(let bytes) = WholeFile.read(path, limit: 4096) else { continue }
            if let line = line(of: bytes) { return line }
        }
        return nil
    }

    /// What the owner should know of how this board takes updates, beside its last word: that the next
    /// bundle on the card may be older (`[update] allow_older`, while it is set), and that the image trusts a
    /// development key (`PLAYOLA_UPDATE_KEYS=development` in os-release, written by the image's build).
    static func notes(allowOlder: Bool, osRelease: String = "/etc/os-release") -> [String] {
        var notes: [String] = []
        if allowOlder { notes.append("allow_older is set: the next bundle on the card may be older") }
        if case .success(let bytes) = WholeFile.read(osRelease, limit: 16384),
           String(decoding: bytes, as: UTF8.self).split(separator: "\n").contains("PLAYOLA_UPDATE_KEYS=development") {
            notes.append("this image trusts a development update key")
        }
        return notes
    }

    /// The first line, its control characters made spaces, at most `longest` characters.
    static func line(of bytes: Data) -> String? {
        let first = bytes.prefix { $0 != UInt8(ascii: "\n") }
        let characters = String(decoding: first, as: UTF8.self)
            .unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }
        let trimmed = String(characters.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        guard !trimmed.isEmpty else { return nil }
        return trimmed.count > longest ? String(trimmed.prefix(longest)) + "…" : trimmed
    }
}
