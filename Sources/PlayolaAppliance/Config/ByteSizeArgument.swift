import PlayolaApplianceSupport

/// `64M`, `1G`, `500k` or a plain number of bytes, within `range` (the INI's spelling, `ConfigValue.byteSize`).
package func parseByteSize(_ text: String, option: String, range: ClosedRange<Int64>) throws(UsageError) -> Int64 {
    guard let bytes = ConfigValue.byteSize(text), range.contains(bytes) else {
        throw UsageError("\(option): a size like 64M from \(ByteCountText.describe(range.lowerBound)) to \(ByteCountText.describe(range.upperBound)), not '\(text)'")
    }
    return bytes
}
