extension String {
    /// The text without leading and trailing spaces, tabs and line breaks (FoundationEssentials has no trimming).
    public func trimmingWhitespace() -> String {
        // `isWhitespace`, not a list: "\r\n" is a single Character, equal to neither "\r" nor "\n".
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}

extension String {
    /// At most `limit` characters: a longer text is cut and ends in "…".
    public func cut(to limit: Int) -> String {
        // A character is at least one byte: no more bytes than the limit is no more characters.
        guard utf8.count > limit, count > limit else { return self }
        return String(prefix(limit - 1)) + "…"
    }
}
