
/// One command line as MPD reads it (`src/util/Tokenizer.cxx`): a command name of ASCII letters, digits and
/// `_` starting with a letter, then arguments separated by blanks, each unquoted (no blank, `"` or `'`) or in
/// double quotes with `\` escaping the next character. Trailing blanks (a telnet's `\r` too) are dropped.
struct MPDRequestLine: Equatable, Sendable {
    /// MPD's own limit (COMMAND_ARGV_MAX is 4096); none of ours takes more than one.
    static let maximumArguments = 16

    var command: String
    var arguments: [String]

    /// Why a line is no command. `closes`: MPD ends the connection (the line is not its protocol at all).
    struct Failure: Error, Equatable {
        var error: MPDError
        var closes: Bool
    }

    init(command: String, arguments: [String]) {
        (self.command, self.arguments) = (command, arguments)
    }

    init(_ line: [UInt8]) throws(Failure) {
        var bytes = line[...]
        while let last = bytes.last, last <= 0x20 { bytes.removeLast() }
        // MPD closes on a line that does not start with a lower-case letter (a stray HTTP request, an empty
        // line); it says nothing, we say why first.
        guard let first = bytes.first, (0x61...0x7A).contains(first) else {
            throw Failure(error: MPDError(.unknown, "", "a command starts with a lower-case letter; closing"), closes: true)
        }
        var index = bytes.startIndex
        while index < bytes.endIndex, bytes[index] > 0x20 {
            let byte = bytes[index]
            guard (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F else {
                throw Failure(error: MPDError(.unknown, "", "Invalid word character"), closes: true)
            }
            index += 1
        }
        command = String(decoding: bytes[bytes.startIndex..<index], as: UTF8.self)
        arguments = []
        while true {
            while index < bytes.endIndex, bytes[index] <= 0x20 { index += 1 }
            guard index < bytes.endIndex else { break }
            guard arguments.count < Self.maximumArguments else { throw Failure(error: MPDError(.argument, "", "Too many arguments"), closes: false) }
            var argument: [UInt8] = []
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while true {
                    guard index < bytes.endIndex else { throw Failure(error: MPDError(.unknown, "", "Missing closing '\"'"), closes: false) }
                    var byte = bytes[index]
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < bytes.endIndex else { throw Failure(error: MPDError(.unknown, "", "Missing closing '\"'"), closes: false) }
                        byte = bytes[index]
                    }
                    argument.append(byte)
                    index += 1
                }
                index += 1
                guard index == bytes.endIndex || bytes[index] <= 0x20 else {
                    throw Failure(error: MPDError(.unknown, "", "Space expected after closing '\"'"), closes: false)
                }
            } else {
                while index < bytes.endIndex, bytes[index] > 0x20 {
                    guard bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "'") else {
                        throw Failure(error: MPDError(.unknown, "", "Invalid unquoted character"), closes: false)
                    }
                    argument.append(bytes[index])
                    index += 1
                }
            }
            arguments.append(String(decoding: argument, as: UTF8.self))
        }
    }
}
