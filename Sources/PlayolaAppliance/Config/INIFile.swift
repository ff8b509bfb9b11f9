import CINIH
import Glibc
import PlayolaEngine
import PlayolaApplianceSupport

/// One `key = value` line.
struct INIEntry: Sendable, Equatable {
    /// The section name with surrounding blanks removed ("" before any section).
    var section: String
    var key: String
    var value: String
    /// The value before libinih cut an inline comment from it (`a ;b`: "a ;b"), surrounding blanks removed;
    /// the same as `value` when there was none.
    var uncutValue: String
    var line: Int
    /// The line of this entry's `[section]` header (0 before any): libinih merges two sections of the same
    /// name, and a repeated `[station NAME]` must be told apart from the first.
    var sectionLine: Int
}

/// One `[section]` header, kept because libinih reports only keys, so an empty section would otherwise vanish.
struct INISection: Sendable, Equatable {
    var name: String
    var line: Int
}

/// Why a config file could not be parsed at all.
package enum ConfigError: Error, Sendable, Equatable {
    /// `reason` is strerror's text.
    case unreadable(reason: String)
    case syntax(line: Int)
    case lineTooLong(line: Int, limit: Int)
    case tooLarge(limit: Int)
    case utf16
    /// `character` counts from 1 on its line.
    case notUTF8(line: Int, character: Int, byte: UInt8)
    /// Each line's first; nothing else is checked in a file that holds one, as libinih's reading of it is not
    /// what it looks like (`TextScan`).
    case controlCharacters([TextScan.ControlCharacter])

    package var line: Int {
        switch self {
        case .unreadable, .tooLarge, .utf16: 0
        case .syntax(let line), .lineTooLong(let line, _), .notUTF8(let line, _, _): line
        case .controlCharacters(let found): found.first?.line ?? 0
        }
    }

    package var message: String {
        switch self {
        case .unreadable(let reason): "cannot read: \(reason)"
        case .syntax: "syntax error: a line must be 'key = value', '[section]' or '; comment'"
        case .lineTooLong(_, let limit): "line is too long: at most \(limit) characters"
        case .tooLarge(let limit): "larger than \(limit) bytes: not a config file"
        case .utf16: "not UTF-8 text (it looks like UTF-16: save it as UTF-8)"
        case .notUTF8(_, let character, let byte):
            "not UTF-8 text: character \(character) is the byte \(TextScan.hex(byte)), which UTF-8 does not allow there (save the file as UTF-8)"
        case .controlCharacters(let found): found.first?.message ?? ""
        }
    }

    /// As the findings about `file`: one for each control character, else the one.
    func diagnostics(file: String) -> [Diagnostic] {
        guard case .controlCharacters(let found) = self else { return [.error(message, file: file, line: line)] }
        return found.map { .error($0.message, file: file, line: $0.line) }
    }
}

/// An INI file as parsed by libinih, in file order, with the line of everything.
package struct INIFile: Sendable, Equatable {
    var sections: [INISection] = []
    var entries: [INIEntry] = []

    static func parse(path: String) throws(ConfigError) -> INIFile {
        try parse(bytes: try read(path))
    }

    static func parse(text: String) throws(ConfigError) -> INIFile {
        try parse(bytes: Array(text.utf8))
    }

    static func parse(bytes: [UInt8]) throws(ConfigError) -> INIFile {
        let controlCharacters = try TextScan.controlCharacters(inUTF8: bytes)
        if !controlCharacters.isEmpty { throw .controlCharacters(controlCharacters) }
        let feeder = LineFeeder(bytes)
        let user = Unmanaged.passUnretained(feeder).toOpaque()
        // Parsing a stream we feed ourselves is how we learn line numbers: this libinih is built without
        // INI_HANDLER_LINENO, and it calls the handler for a line right after reading that line.
        let result = withExtendedLifetime(feeder) { ini_parse_stream(LineFeeder.reader, user, LineFeeder.handler, user) }
        let firstError = [result > 0 ? ConfigError.syntax(line: Int(result)) : nil, feeder.firstTooLong]
            .compactMap { $0 }.min { $0.line < $1.line }
        if let firstError { throw firstError }
        if result < 0 { throw ConfigError.unreadable(reason: Errno(ENOMEM).description) }
        return feeder.file
    }

    /// Far more than any INI written by hand; a bigger file is a wrong path, not a config.
    static let maximumSize = 1 << 20

    /// The file's bytes, for `parse(bytes:)`.
    package static func read(_ path: String) throws(ConfigError) -> [UInt8] {
        switch WholeFile.read(path, limit: maximumSize) {
        case .success(let data): return [UInt8](data)
        case .failure(.missing): throw .unreadable(reason: Errno(ENOENT).description)
        case .failure(.unreadable(let reason)): throw .unreadable(reason: reason)
        case .failure(.tooLarge(let limit)): throw .tooLarge(limit: limit)
        }
    }
}

/// Hands libinih one physical line per read, so its line count and ours are the same.
private final class LineFeeder {
    private let bytes: [UInt8]
    private var offset = 0
    private var lineNumber = 0
    private var section = ""
    private var sectionLine = 0
    /// The line last handed to libinih, for the value before its inline comment was cut.
    private var content: ArraySlice<UInt8> = []
    private(set) var file = INIFile()
    private(set) var firstTooLong: ConfigError?

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static let reader: ini_reader = { buffer, size, stream in
        guard let buffer, let stream else { return nil }
        let feeder = Unmanaged<LineFeeder>.fromOpaque(stream).takeUnretainedValue()
        return feeder.nextLine(into: buffer, capacity: Int(size)) ? buffer : nil
    }

    static let handler: ini_handler = { user, _, name, value in
        guard let user, let name, let value else { return 1 }
        let feeder = Unmanaged<LineFeeder>.fromOpaque(user).takeUnretainedValue()
        let text = String(cString: value)
        feeder.file.entries.append(INIEntry(
            section: feeder.section, key: String(cString: name), value: text, uncutValue: feeder.uncutValue() ?? text,
            line: feeder.lineNumber, sectionLine: feeder.sectionLine))
        return 1
    }

    /// The current line's text after its first `=` or `:` (where libinih ends the key) with libinih's blanks
    /// (C's isspace) around it removed.
    private func uncutValue() -> String? {
        guard let separator = content.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }) else { return nil }
        var uncut = content[(separator + 1)...]
        let isBlank = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        while let first = uncut.first, isBlank(first) { uncut = uncut.dropFirst() }
        while let last = uncut.last, isBlank(last) { uncut = uncut.dropLast() }
        return String(decoding: uncut, as: UTF8.self)
    }

    private func nextLine(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Bool {
        guard offset < bytes.count else { return false }
        lineNumber += 1
        var end = offset
        while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
        var start = offset
        if lineNumber == 1 && bytes[start...].starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        // Leading blanks go: libinih would take an indented line as the continuation of the previous value
        // (Python's multi-line values), silently swallowing an indented `key = value`.
        while start < end && (bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t")) { start += 1 }
        offset = end + 1
        var content = bytes[start..<end]
        if content.count + 2 > capacity {
            if firstTooLong == nil { firstTooLong = .lineTooLong(line: lineNumber, limit: capacity - 2) }
            content = []
        }
        noteSection(content)
        self.content = content
        content.withUnsafeBytes { raw in
            buffer.withMemoryRebound(to: UInt8.self, capacity: capacity) { out in
                if let base = raw.baseAddress { out.update(from: base.assumingMemoryBound(to: UInt8.self), count: raw.count) }
                out[raw.count] = UInt8(ascii: "\n")
                out[raw.count + 1] = 0
            }
        }
        return true
    }

    /// libinih only reports keys, so headers are noted here; a header libinih rejects fails the parse anyway.
    private func noteSection(_ content: ArraySlice<UInt8>) {
        guard content.first == UInt8(ascii: "["), let close = content.firstIndex(of: UInt8(ascii: "]")) else { return }
        section = String(decoding: content[(content.startIndex + 1)..<close], as: UTF8.self).trimmedBlanks
        sectionLine = lineNumber
        file.sections.append(INISection(name: section, line: lineNumber))
    }
}

extension String {
    /// Without surrounding spaces, tabs and line ends.
    var trimmedBlanks: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
