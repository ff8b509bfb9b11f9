import Glibc

/// The lines of a playlist's bytes, trimmed, as ranges: a live HLS playlist can be megabytes that are read
/// again at every reload, so a line becomes a `String` only when its value is wanted. Lines end at LF, CR or
/// CRLF; a byte-order mark and ASCII blanks around a line are dropped.
struct PlaylistLines {
    let bytes: [UInt8]
    private(set) var ranges: [Range<Int>] = []

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var ranges: [Range<Int>] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                // memchr, not a loop over bytes: this runs over every byte of every reload, in debug builds too.
                let newline = memchr(base + start, 0x0A, buffer.count - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? buffer.count
                var at = start
                while at < newline {
                    let carriage = memchr(base + at, 0x0D, newline - at).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? newline
                    let line = Self.trimmed(buffer, at..<carriage)
                    if !line.isEmpty { ranges.append(line) }
                    at = carriage + 1
                }
                start = newline + 1
            }
        }
        self.ranges = ranges
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var (low, high) = (range.lowerBound, range.upperBound)
        if high - low >= 3, bytes[low] == 0xEF, bytes[low + 1] == 0xBB, bytes[low + 2] == 0xBF { low += 3 }
        while low < high, bytes[low] == 0x20 || bytes[low] == 0x09 { low += 1 }
        while high > low, bytes[high - 1] == 0x20 || bytes[high - 1] == 0x09 { high -= 1 }
        return low..<high
    }

    func hasPrefix(_ line: Range<Int>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard line.count >= count else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            memcmp(buffer.baseAddress! + line.lowerBound, prefix.utf8Start, count) == 0
        }
    }

    func isExactly(_ line: Range<Int>, _ text: StaticString) -> Bool {
        line.count == text.utf8CodeUnitCount && hasPrefix(line, text)
    }

    /// A URI line: neither a tag nor a comment.
    func isURI(_ line: Range<Int>) -> Bool { bytes[line.lowerBound] != UInt8(ascii: "#") }

    func text(_ line: Range<Int>) -> String { String(decoding: bytes[line], as: UTF8.self) }

    /// What follows `prefix` on the line, when the line starts with it.
    func value(_ line: Range<Int>, after prefix: StaticString) -> String? {
        hasPrefix(line, prefix) ? text((line.lowerBound + prefix.utf8CodeUnitCount)..<line.upperBound) : nil
    }

    /// Whether any line of `bytes` starts with `tag` (a quick look before any parse).
    static func contains(_ bytes: [UInt8], _ tag: StaticString) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            let count = tag.utf8CodeUnitCount
            var at = 0
            // memchr for the tag's first byte, then memcmp (Glibc's module has no memmem, a GNU extension).
            while at + count <= buffer.count, let found = memchr(base + at, Int32(tag.utf8Start[0]), buffer.count - count + 1 - at) {
                let offset = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
                if memcmp(base + offset, tag.utf8Start, count) == 0 { return true }
                at = offset + 1
            }
            return false
        }
    }
}
