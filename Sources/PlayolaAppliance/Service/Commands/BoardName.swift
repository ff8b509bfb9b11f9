import FoundationEssentials
import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

/// The name a box has on the network when its INI gives none: `playola-` and the last four hex digits of the
/// board's serial number (a Raspberry Pi's device tree has it) or, without one, of its first network
/// interface's MAC address, so that two boxes on one network differ and each keeps its name at every boot.
enum BoardName {
    static let prefix = "playola"

    /// `serial`: the device tree's serial-number (hex, NUL-terminated); `macs`: the interfaces' addresses by
    /// interface name.
    static func name(serial: String?, macs: [(interface: String, address: String)]) -> String {
        if let digits = serial.map(hexDigits), digits.count >= 4, digits.contains(where: { $0 != "0" }) {
            return "\(prefix)-\(digits.suffix(4))"
        }
        let real = macs.sorted { $0.interface < $1.interface }.map { hexDigits($0.address) }
            .first { $0.count == 12 && $0.contains { $0 != "0" } }
        return real.map { "\(prefix)-\($0.suffix(4))" } ?? prefix
    }

    /// This board's: its device tree's serial number, else the MACs in /sys/class/net (the loopback's is all zeros).
    static func ofThisBoard(root: String = "") -> String {
        let text = { (path: String) -> String? in
            guard case .success(let bytes) = WholeFile.read(root + path, limit: 64) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        let serial = text("/proc/device-tree/serial-number")
        var macs: [(String, String)] = []
        for interface in (try? directoryNames(root + "/sys/class/net")) ?? [] {
            if let address = text("/sys/class/net/\(interface)/address") { macs.append((interface, address)) }
        }
        return name(serial: serial, macs: macs)
    }

    private static func hexDigits(_ text: String) -> String {
        String(text.lowercased().filter { $0.isHexDigit && $0.isASCII })
    }
}
