/// Text from outside (a track title, an ICY `StreamTitle`, a station's name as a server gives it, a
/// request) made safe to put in a log line: every control character is escaped, so a `\n<0>` in a title
/// cannot start a journal line of its own (at emergency priority), and a terminal escape cannot reach a
/// console.
package enum LogField {
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || $0 == "\\" }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                result += "\\u{" + hex + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// C0, DEL, C1 (the general category Cc), and the Unicode line and paragraph separators, which some
    /// readers also break lines at.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
