import PlayolaApplianceSupport
import PlayolaEngine

/// The A/B slot U-Boot booted (`rauc.slot=` on the kernel's command line), where the image has slots.
package enum BootSlot {
    /// Read once: the command line does not change while the system runs.
    package static let current: String? = read()

    package static func read(cmdline: String = "/proc/cmdline") -> String? {
        guard case .success(let bytes) = WholeFile.read(cmdline, limit: 4096) else { return nil }
        let word = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
            .first { $0.hasPrefix("rauc.slot=") }
        return word.map { String($0.dropFirst("rauc.slot=".count)) }
    }
}
