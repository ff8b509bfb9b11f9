/// A count of bytes as the INI spells it.
package enum ByteCountText {
    /// `16M`, `1024G`: the largest binary unit that divides the count.
    package static func describe(_ bytes: Int64) -> String {
        for (unit, shift) in [("G", Int64(30)), ("M", 20), ("k", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)"
    }
}
