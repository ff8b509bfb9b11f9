import Glibc

/// A Unix socket's address: a path in the file system, or a name in Linux's abstract namespace.
package struct UnixSocketAddress: Sendable {
    private var storage = sockaddr_un()
    private let length: socklen_t

    /// A path (with its NUL) or an abstract name (a NUL, then exactly the name) that fits sun_path's 108 bytes;
    /// nil when empty or too long.
    private init?(sunPath bytes: [UInt8]) {
        guard bytes.count > 1, bytes.count <= MemoryLayout.size(ofValue: storage.sun_path) else { return nil }
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
    }

    package init?(path: String) { self.init(sunPath: Array(path.utf8) + [0]) }

    package init?(abstract name: String) { self.init(sunPath: [0] + Array(name.utf8)) }

    /// `/path`, or `@name` in the abstract namespace (as systemd and ss(8) write them); nil for anything else.
    package init?(named name: String) {
        switch name.first {
        case "/": self.init(path: name)
        case "@": self.init(abstract: String(name.dropFirst()))
        default: return nil
        }
    }

    /// The address as the socket calls take it.
    package func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafeBytes(of: storage) { raw in body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }
}
