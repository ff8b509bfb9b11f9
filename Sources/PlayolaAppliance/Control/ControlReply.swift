import FoundationEssentials
import PlayolaConfig

/// The control protocol's answers: one JSON object per line, always with a boolean `ok`. Built with
/// JSONEncoder and read with JSONDecoder on both sides, so a title or an error text holding quotes,
/// `"ok":false` or a newline can neither break the line nor change the client's exit status.
package struct ControlReply: Codable, Sendable, Equatable {
    package var ok: Bool
    package var error: String?

    package static let success = ControlReply(ok: true)

    package static func failure(_ message: String) -> ControlReply { ControlReply(ok: false, error: message) }

    /// One line of JSON (no newline in it: JSONEncoder escapes control characters in strings).
    package static func line<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return #"{"error":"the answer could not be encoded","ok":false}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// The `ok` of an answer, or nil when the text is not a JSON object with a boolean `ok`.
    package static func isOK(_ text: String) -> Bool? { decode(text)?.ok }

    /// An answer's outcome and error text, or nil when the text is not a JSON object with a boolean `ok`.
    package static func decode(_ text: String) -> ControlReply? {
        try? JSONDecoder().decode(ControlReply.self, from: Data(text.utf8))
    }

    /// For people, beside a `status` answer: the INI has errors and the service runs on the last good
    /// configuration. nil for any other answer.
    package static func configNote(_ text: String) -> String? {
        struct Answer: Decodable { let config: ConfigStatus? }
        guard let status = (try? JSONDecoder().decode(Answer.self, from: Data(text.utf8)))?.config, let error = status.error else { return nil }
        return "\(status.file) has errors, so the service runs on the last good configuration (\(status.lastGood)). The first: \(error)"
    }
}
