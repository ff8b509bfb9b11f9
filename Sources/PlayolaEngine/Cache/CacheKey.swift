/// File names in the cache: 64-bit FNV-1a of the URL's UTF-8 bytes as 16 lowercase hex digits, plus the
/// URL path's extension, so decoders and people can still tell the format (`3f2a0c91d4e5b6a7.m4a`).
enum CacheKey {
    static let partSuffix = ".part"
    /// Marks a file the decoder is checking (its content: the URL); see `AudioCache.beginProbe`.
    static let probeSuffix = ".probe"
    private static let maxExtensionLength = 5

    static func key(for url: String) -> String {
        let hex = String(fnv1a(url.utf8), radix: 16)
        let name = String(repeating: "0", count: 16 - hex.count) + hex
        return pathExtension(of: url).map { name + "." + $0 } ?? name
    }

    static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The last path component's text after its last dot, lowercased, if it is 1–5 of [a-z0-9].
    /// Anything else (no path, a long or odd suffix) gives no extension rather than a surprising file name.
    static func pathExtension(of url: String) -> String? {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        // The host is not part of the path: `https://example.com` has no extension.
        if let scheme = path.firstRange(of: "://") {
            let afterScheme = path[scheme.upperBound...]
            guard let slash = afterScheme.firstIndex(of: "/") else { return nil }
            path = afterScheme[slash...]
        }
        let component = path.split(separator: "/", omittingEmptySubsequences: false).last ?? path
        guard let dot = component.lastIndex(of: ".") else { return nil }
        let candidate = component[component.index(after: dot)...].lowercased()
        guard (1...maxExtensionLength).contains(candidate.utf8.count),
              candidate.utf8.allSatisfy({ isLowerAlphanumeric($0) }) else { return nil }
        return candidate
    }

    /// Whether `name` is a complete file's name as `key(for:)` makes them (so the start-up scan keeps it).
    static func isKey(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 16, bytes[..<16].allSatisfy(isLowerHex) else { return false }
        if bytes.count == 16 { return true }
        let ext = bytes[17...]
        return bytes[16] == UInt8(ascii: ".") && (1...maxExtensionLength).contains(ext.count)
            && ext.allSatisfy(isLowerAlphanumeric)
    }

    /// A partial download's name: a key plus `.part`.
    static func isPart(_ name: String) -> Bool { name.hasSuffix(partSuffix) && isKey(String(name.dropLast(partSuffix.count))) }

    /// A check marker's name: a key plus `.probe`.
    static func isProbe(_ name: String) -> Bool { name.hasSuffix(probeSuffix) && isKey(String(name.dropLast(probeSuffix.count))) }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private static func isLowerAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }
}
