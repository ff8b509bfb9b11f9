/// One finding about a config file, pointing at the line to fix.
struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    enum Severity: String, Sendable {
        case error, warning
    }

    var severity: Severity
    var file: String
    /// 0 when the finding is about the whole file.
    var line: Int
    var message: String

    static func error(_ message: String, file: String, line: Int) -> Diagnostic {
        Diagnostic(severity: .error, file: file, line: line, message: message)
    }

    static func warning(_ message: String, file: String, line: Int) -> Diagnostic {
        Diagnostic(severity: .warning, file: file, line: line, message: message)
    }

    /// The compiler's format, so editors and terminals can jump to the line.
    var description: String { "\(file):\(line): \(severity.rawValue): \(message)" }
}

/// Suggestions for misspelled section and key names.
enum DidYouMean {
    /// Further than this, a suggestion is more likely to confuse than help.
    static let maximumDistance = 2

    /// The candidate closest to `word`, or nil when none is within `maximumDistance` (ties: the earlier candidate).
    static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (candidate: String, distance: Int)?
        for candidate in candidates where candidate != word {
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
