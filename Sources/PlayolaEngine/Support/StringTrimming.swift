extension String {
    /// The text without leading and trailing spaces, tabs and line breaks (FoundationEssentials has no trimming).
    public func trimmingWhitespace() -> String {
        // `isWhitespace`, not a list: "\r\n" is a single Character, equal to neither "\r" nor "\n".
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
