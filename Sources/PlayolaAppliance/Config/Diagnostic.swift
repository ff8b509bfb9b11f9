/// One finding about a config file, pointing at the line to fix.
package struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    package enum Severity: String, Sendable {
        case error, warning
    }

    package var severity: Severity
    var file: String
    /// 0 when the finding is about the whole file.
    package var line: Int
    package var message: String

    package static func error(_ message: String, file: String, line: Int) -> Diagnostic {
        Diagnostic(severity: .error, file: file, line: line, message: message)
    }

    static func warning(_ message: String, file: String, line: Int) -> Diagnostic {
        Diagnostic(severity: .warning, file: file, line: line, message: message)
    }

    /// The compiler's format, so editors and terminals can jump to the line.
    package var description: String { "\(file):\(line): \(severity.rawValue): \(message)" }
}

/// What is printed of many findings: a file of thousands of one mistake says it a few times and counts
/// the rest, so its output, and the journal's, stays small whatever the file holds.
extension Diagnostic {
    static let shownPerKind = 20
    static let shownInAll = 100

    /// Findings that differ only in the values they quote and the numbers they give are one mistake repeated.
    var kind: String {
        var kind = severity.rawValue + ":", quoted = false
        for character in message {
            if character == "'" { quoted.toggle() }
            if !quoted && !character.isNumber { kind.append(character) }
        }
        return kind
    }

    /// `diagnostics` (in order) with at most `shownPerKind` of a kind, then one saying how many more, and at
    /// most `shownInAll` in all, then one counting the rest.
    package static func bounded(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var shown: [Diagnostic] = []
        var shownOfKind: [String: Int] = [:]
        /// Where each kind's count of the rest sits in `shown`, and that count.
        var moreOfKind: [String: (index: Int, count: Int)] = [:]
        var rest: (count: Int, first: Diagnostic, severity: Severity)?
        for diagnostic in diagnostics {
            let kind = diagnostic.kind
            if shownOfKind[kind, default: 0] < shownPerKind && shown.count - moreOfKind.count < shownInAll {
                shown.append(diagnostic)
                shownOfKind[kind, default: 0] += 1
            } else if let more = moreOfKind[kind] {
                moreOfKind[kind] = (more.index, more.count + 1)
            } else if shownOfKind[kind, default: 0] == shownPerKind {
                moreOfKind[kind] = (shown.count, 1)
                shown.append(diagnostic)
            } else {
                let severity: Severity = rest?.severity == .error ? .error : diagnostic.severity
                rest = ((rest?.count ?? 0) + 1, rest?.first ?? diagnostic, severity)
            }
        }
        for (index, count) in moreOfKind.values {
            shown[index].message = "… and \(grouped(count)) more like it"
        }
        if let rest {
            shown.append(Diagnostic(severity: rest.severity, file: rest.first.file, line: rest.first.line,
                                    message: "… and \(grouped(rest.count)) more"))
        }
        return shown
    }

    /// 2980 → "2,980".
    package static func grouped(_ count: Int) -> String {
        var digits = String(count.magnitude), groups: [Substring] = []
        while digits.count > 3 {
            groups.insert(Substring(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        return (count < 0 ? "-" : "") + ([Substring(digits)] + groups).joined(separator: ",")
    }
}

/// Suggestions for misspelled section and key names.
enum DidYouMean {
    /// Further than this, a suggestion is more likely to confuse than help.
    static let maximumDistance = 2

    /// The candidate closest to `word`, or nil when none is within `maximumDistance` (ties: the earlier candidate).
    static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        // Lengths further apart than the distance allowed cannot be within it: a cheap test before the table.
        for candidate in candidates where candidate != word && abs(candidate.count - word.count) <= maximumDistance {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= maximumDistance, distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `"; did you mean 'volume'?"`, or "" when nothing is close; `open`/`close` quote the suggestion.
    static func suffix(for word: String, in candidates: [String], open: String = "'", close: String = "'") -> String {
        guard let candidate = closest(to: word, in: candidates) else { return "" }
        return "; did you mean \(open)\(candidate)\(close)?"
    }

    /// Levenshtein distance where swapping two neighbours counts as one edit, the commonest typing slip.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
