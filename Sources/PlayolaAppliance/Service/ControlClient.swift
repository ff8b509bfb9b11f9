import Glibc
import PlayolaEngine

/// `playola status|play|next|…`: sends one command line to the service's socket and prints the answer.
enum ControlClient {
    static func run(_ command: [String], socketPath: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socketPath.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            return fail("cannot reach the service at \(socketPath): \(String(cString: strerror(errno))) (is `playola run` running?)")
        }
        var line = command.joined(separator: " ") + "\n"
        line.withUTF8 { _ = send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var answer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard got > 0 else { break }
            answer += chunk[0..<got]
        }
        let text = String(decoding: answer, as: UTF8.self).trimmingWhitespace()
        Console.out(text)
        return text.contains(#""ok":false"#) || text.isEmpty ? 1 : 0
    }

    private static func fail(_ message: String) -> Int32 {
        Console.error("playola: \(message)")
        return 1
    }
}
