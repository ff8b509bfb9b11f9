import Glibc
import PlayolaEngine
import PlayolaConfig

/// Why the buttons, encoder or LEDs could not be set up. Each message names the chip and the line, and
/// lists the chips there are when the one asked for is not among them, so the config can be fixed from the
/// log alone.
package enum GPIOError: Error, Equatable, CustomStringConvertible {
    case noChip(String, chips: [GPIOChipInfo])
    case chipUnavailable(String, errno: Int32)
    /// A line given by name that no chip (or not `chip`) has.
    case noLine(String, chip: String?, chips: [GPIOChipInfo])
    /// A line given by offset, but no `chip =` to count it on.
    case needsChip(LineRef)
    case offsetOutOfRange(Int, chip: GPIOChipInfo)
    /// `name`: the kernel's name for the line, "" when it has none.
    case lineBusy(name: String, offset: Int, chip: String, consumer: String)
    case requestFailed(offsets: [Int], chip: String, errno: Int32)
    /// `chip = fake:PATH`.
    case fakeSource(path: String, errno: Int32)

    package var description: String {
        switch self {
        case .noChip(let chip, let chips):
            "no chip '\(chip)'; \(Self.list(chips))"
        case .chipUnavailable(let chip, let code):
            "cannot open chip '\(chip)': \(Errno(code))"
                + (code == EACCES ? " (the service user needs access to /dev/gpiochip*, usually through group gpio)" : "")
        case .noLine(let name, let chip?, let chips):
            "no line named '\(name)' on \(chip) (see gpioinfo); \(Self.list(chips))"
        case .noLine(let name, nil, let chips):
            "no line named '\(name)' on any chip (see gpioinfo); \(Self.list(chips))"
        case .needsChip(let line):
            "\(line) needs a chip: add chip = gpiochip0 (or the right chip) to [gpio]"
        case .offsetOutOfRange(let offset, let chip):
            "there is no line \(offset) on \(chip.name): it has \(chip.lines) lines, 0 to \(chip.lines - 1)"
        case .lineBusy(let name, let offset, let chip, let consumer):
            "line \(name.isEmpty ? "\(offset) of \(chip)" : name) is busy "
                + (consumer.isEmpty ? "(held by a consumer without a name)" : "(held by '\(consumer)')")
        case .requestFailed(let offsets, let chip, let code):
            "cannot request line\(offsets.count == 1 ? "" : "s") \(offsets.map(String.init).joined(separator: ", ")) "
                + "of \(chip): \(Errno(code))"
        case .fakeSource(let path, let code):
            "cannot open the fake GPIO pipe \(path): \(Errno(code))"
        }
    }

    private static func list(_ chips: [GPIOChipInfo]) -> String {
        chips.isEmpty ? "this machine has no GPIO chips" : "chips: " + chips.map(\.description).joined(separator: ", ")
    }

}
