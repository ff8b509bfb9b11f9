/// What a config file's bytes must be before libinih reads them: UTF-8 text without control characters.
/// libinih reads C strings: it stops a line at a NUL, takes a CR, VT or FF before `;` for a blank (so the rest
/// is a comment) and a line starting with one for the continuation of the previous value, and passes any
/// other control character on. Checked here, on the raw bytes, before it, what the validator sees is what
/// there is.
package enum TextScan {
    /// A control character (C0 but tab and the line feed, and DEL; a CR only where it ends a line).
    package struct ControlCharacter: Sendable, Equatable {
        var line: Int
        /// Counted in characters from 1.
        var character: Int
        var byte: UInt8

        var message: String {
            "character \(character) is a control character (\(TextScan.name(of: byte))): a value is printable text on one line"
        }
    }

    /// Each line's first control character, once the bytes are known to be UTF-8 (else the error says where not).
    static func controlCharacters(inUTF8 bytes: [UInt8]) throws(ConfigError) -> [ControlCharacter] {
        if looksLikeUTF16(bytes) { throw .utf16 }
        var found: [ControlCharacter] = []
        var line = 1, character = 0, reportedLine = 0
        var offset = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while offset < bytes.count {
            let byte = bytes[offset]
            character += 1
            let length = sequenceLength(bytes, at: offset)
            guard length > 0 else { throw .notUTF8(line: line, character: character, byte: byte) }
            if byte == 0x0A {
                line += 1
                character = 0
            } else if isControl(byte), !(byte == 0x0D && (offset + 1 == bytes.count || bytes[offset + 1] == 0x0A)), reportedLine != line {
                found.append(ControlCharacter(line: line, character: character, byte: byte))
                reportedLine = line
            }
            offset += length
        }
        return found
    }

    static func isControl(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == 0x7F }

    /// A BOM, or NULs at most of the odd (or the even) places of its start: ASCII text as UTF-16, which an
    /// editor's "Unicode" saves.
    static func looksLikeUTF16(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return true }
        let start = bytes.prefix(256)
        guard start.count >= 4 else { return false }
        let pairs = start.count / 2
        let evenNULs = stride(from: 0, to: pairs * 2, by: 2).filter { start[$0] == 0 }.count
        let oddNULs = stride(from: 1, to: pairs * 2, by: 2).filter { start[$0] == 0 }.count
        return max(evenNULs, oddNULs) * 4 >= pairs * 3 && min(evenNULs, oddNULs) * 4 < pairs
    }

    /// The length of the well-formed UTF-8 sequence at `offset`, or 0 (no overlong forms, surrogates or
    /// values past U+10FFFF, as Unicode's table 3-7 allows).
    private static func sequenceLength(_ bytes: [UInt8], at offset: Int) -> Int {
        let first = bytes[offset]
        let (length, secondRange): (Int, ClosedRange<UInt8>) = switch first {
        case 0x00...0x7F: (1, 0x80...0xBF)
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        default: (0, 0x80...0xBF)
        }
        guard length > 1 else { return length }
        guard offset + length <= bytes.count, secondRange.contains(bytes[offset + 1]) else { return 0 }
        return bytes[(offset + 2)..<(offset + length)].allSatisfy { (0x80...0xBF).contains($0) } ? length : 0
    }

    static func hex(_ byte: UInt8) -> String {
        "0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }

    static func name(of byte: UInt8) -> String {
        let names: [UInt8: String] = [0x00: "NUL", 0x08: "backspace", 0x0B: "vertical tab", 0x0C: "form feed",
                                      0x0D: "carriage return", 0x1B: "escape", 0x7F: "delete"]
        return names[byte].map { "\($0), \(hex(byte))" } ?? hex(byte)
    }
}
