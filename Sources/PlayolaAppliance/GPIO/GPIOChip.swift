import CGPIO
import Glibc

/// What the kernel says about a chip: `gpiochip0 [pinctrl-bcm2711] (58 lines)`.
package struct GPIOChipInfo: Sendable, Equatable, CustomStringConvertible {
    var name: String
    var label: String
    var lines: Int

    package var description: String { "\(name) [\(label)] (\(lines) lines)" }
}

/// What the kernel says about one line.
struct GPIOLineInfo: Sendable, Equatable {
    var offset: Int
    /// "" when unnamed.
    var name: String
    /// "" when free or unnamed.
    var consumer: String
    var isUsed: Bool
}

/// An open GPIO chip: the one Swift owner of a `cgpio_chip`. Like the libgpiod object, it belongs to one
/// thread at a time.
final class GPIOChip {
    private let handle: OpaquePointer
    let info: GPIOChipInfo

    var name: String { info.name }

    /// `chip`: a path (/dev/gpiochip0), name (gpiochip0), number (0) or label (pinctrl-bcm2711).
    init(_ chip: String) throws(GPIOError) {
        guard let handle = cgpio_chip_open(chip) else {
            let code = errno
            throw code == ENOENT ? .noChip(chip, chips: Self.all()) : .chipUnavailable(chip, errno: code)
        }
        self.handle = handle
        info = GPIOChipInfo(name: String(cString: cgpio_chip_name(handle)), label: String(cString: cgpio_chip_label(handle)),
                            lines: Int(cgpio_chip_num_lines(handle)))
    }

    deinit { cgpio_chip_close(handle) }

    /// The offset of the first line with this name.
    func offset(ofLine name: String) -> Int? {
        let offset = cgpio_chip_find_line(handle, name)
        return offset >= 0 ? Int(offset) : nil
    }

    func line(_ offset: Int) -> GPIOLineInfo? {
        var name = [CChar](repeating: 0, count: 64), consumer = [CChar](repeating: 0, count: 64)
        let used = cgpio_line_info(handle, UInt32(offset), &name, name.count, &consumer, consumer.count)
        guard used >= 0 else { return nil }
        return GPIOLineInfo(offset: offset, name: Self.string(name), consumer: Self.string(consumer), isUsed: used == 1)
    }

    func lines() -> [GPIOLineInfo] { (0..<info.lines).compactMap(line) }

    /// Inputs reporting both edges. On a busy line the error names it and who holds it.
    func requestInputs(_ offsets: [Int], activeLow: Bool, bias: GPIOBias, consumer: String) throws(GPIOError) -> GPIOLines {
        let requested = offsets.map(UInt32.init)
        let request = cgpio_request_input(handle, requested, requested.count, activeLow, bias.c, consumer)
        return try lines(request, offsets)
    }

    /// Outputs, off at first.
    func requestOutputs(_ offsets: [Int], consumer: String) throws(GPIOError) -> GPIOLines {
        let requested = offsets.map(UInt32.init)
        return try lines(cgpio_request_output(handle, requested, requested.count, consumer), offsets)
    }

    private func lines(_ request: OpaquePointer?, _ offsets: [Int]) throws(GPIOError) -> GPIOLines {
        guard let request else {
            let code = errno
            if code == EBUSY, let busy = offsets.lazy.compactMap(line).first(where: \.isUsed) {
                throw .lineBusy(name: busy.name, offset: busy.offset, chip: name, consumer: busy.consumer)
            }
            throw .requestFailed(offsets: offsets, chip: name, errno: code)
        }
        return GPIOLines(request, chip: self, offsets: offsets)
    }

    /// Every chip that can be opened, in number order.
    static func all() -> [GPIOChipInfo] {
        var chips: [GPIOChipInfo] = []
        var path = [CChar](repeating: 0, count: 64)
        var index: UInt32 = 0
        while cgpio_chip_path(index, &path, path.count) == 0 {
            if let chip = try? GPIOChip(string(path)) { chips.append(chip.info) }
            index += 1
        }
        return chips
    }

    /// The chip and offset of the first line with this name on any chip.
    static func find(line name: String) throws(GPIOError) -> (chip: String, offset: Int) {
        var chip = [CChar](repeating: 0, count: 64)
        let offset = cgpio_find_line(name, &chip, chip.count)
        guard offset >= 0 else {
            let code = errno
            throw code == ENOENT ? .noLine(name, chip: nil, chips: all()) : .chipUnavailable("/dev/gpiochip*", errno: code)
        }
        return (string(chip), Int(offset))
    }

    private static func string(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// The resistor inside the SoC that holds an open contact at a known level.
enum GPIOBias: Sendable {
    case asIs, disabled, pullUp, pullDown

    fileprivate var c: cgpio_bias {
        switch self {
        case .asIs: CGPIO_BIAS_AS_IS
        case .disabled: CGPIO_BIAS_DISABLE
        case .pullUp: CGPIO_BIAS_PULL_UP
        case .pullDown: CGPIO_BIAS_PULL_DOWN
        }
    }
}
