/// Text from outside (a token, a header value, a URL) that will go on the wire or into a file name must hold
/// no control character: a CR or LF there splits one HTTP field into two.
public enum ControlCharacters {
    /// The UTF-8 offset of the first control character (C0 but tab, and DEL), or nil if there is none.
    public static func first(in text: String) -> Int? {
        text.utf8.firstIndex { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }.map { text.utf8.distance(from: text.utf8.startIndex, to: $0) }
    }
}
