
/// An MPD failure answer, `ACK [CODE@INDEX] {COMMAND} MESSAGE`: the code is one of MPD's (`src/protocol/Ack.hxx`),
/// the index the command's place in a command list, the command the one that failed (empty when the line had
/// no command MPD knows, as MPD writes it).
struct MPDError: Error, Equatable, Sendable {
    enum Code: Int, Sendable {
        case notList = 1, argument = 2, password = 3, permission = 4, unknown = 5
        case noExist = 50, system = 52
    }

    var code: Code
    var command: String
    var message: String

    init(_ code: Code, _ command: String, _ message: String) {
        (self.code, self.command, self.message) = (code, command, message)
    }

    /// The ACK line (with its newline) for the command at `index` of a command list (0 outside one).
    func line(at index: Int) -> String { "ACK [\(code.rawValue)@\(index)] {\(command)} \(message)\n" }

    static func wrongArguments(_ command: String) -> MPDError { MPDError(.argument, command, "wrong number of arguments for \"\(command)\"") }
}
