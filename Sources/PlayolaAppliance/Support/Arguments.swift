/// Plain `--name value` options, `--name` flags and positional words, parsed without outside packages.
package struct Arguments {
    package private(set) var options: [String: String] = [:]
    package private(set) var flags: Set<String> = []
    package private(set) var positional: [String] = []

    /// `valued` lists the options that take a value, `flags` those that take none; any other `--word`, and
    /// more than `positionalLimit` other words, is a usage error, so a mistyped option is said, never ignored.
    package init(_ words: [String], valued: Set<String>, flags allowedFlags: Set<String> = ["help"], positionalLimit: Int = 0) throws(UsageError) {
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    options[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if valued.contains(name) {
                    // A word of options next (`--ago --json`) is not the value but the sign that it is missing.
                    guard index + 1 < words.count, !words[index + 1].hasPrefix("--") else { throw UsageError("--\(name) needs a value") }
                    options[name] = words[index + 1]
                    index += 1
                } else if allowedFlags.contains(name) {
                    flags.insert(name)
                } else {
                    throw UsageError("unknown option --\(LogField.escaped(name))")
                }
            } else {
                positional.append(word)
            }
            index += 1
        }
        let unknown = Set(options.keys).subtracting(valued)
        if let name = unknown.sorted().first { throw UsageError("unknown option --\(LogField.escaped(name))") }
        if positional.count > positionalLimit { throw UsageError("unexpected '\(LogField.escaped(positional[positionalLimit]))'") }
    }

    package func required(_ name: String) throws(UsageError) -> String {
        guard let value = options[name] else { throw UsageError("--\(name) is required") }
        return value
    }

    /// `--name SECONDS`, a finite number above 0 and at most `maximum`, or nil when not given. Checked
    /// here, once, so no caller converts NaN, infinity or 1e300 into an integer (a trap).
    package func seconds(_ name: String, maximum: Double) throws(UsageError) -> Double? {
        guard let text = options[name] else { return nil }
        guard let value = Double(text), value.isFinite, value > 0, value <= maximum else {
            throw UsageError("--\(name): a number of seconds above 0 and at most \(Int(maximum)), not '\(text)'")
        }
        return value
    }
}

package struct UsageError: Error, CustomStringConvertible {
    package var description: String
    /// The text names the command itself (`volume takes a percentage …`), so it is not said again before it.
    package var namesCommand: Bool
    package init(_ description: String, namesCommand: Bool = false) {
        self.description = description
        self.namesCommand = namesCommand
    }
}
