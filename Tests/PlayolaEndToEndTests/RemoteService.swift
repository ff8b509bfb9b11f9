import Foundation
import XCTest
import PlayolaTestSupport

/// A `playola run` with `[remote]` on a free port of 127.0.0.1 (ServiceTests.Service underneath: two local
/// stations, `low` at 400 Hz and `high` at 1000 Hz, into a paced capture), and the real clients against it:
/// Debian's `mpc`, and python-mpd2 through `Tests/Support/mpd_client.py`.
final class RemoteService {
    static let password = "correct horse battery"
    let service: ServiceTests.Service
    private(set) var port = 0

    init(listen: String = "localhost", password: String? = RemoteService.password) throws {
        service = try ServiceTests.Service()
        self.listen = listen
        self.password = password
    }

    let listen: String
    let password: String?
    /// More `[station …]` sections.
    var extraStations = ""

    /// Starts the service on a port nobody holds: one the kernel just gave out is taken again; if another
    /// process took it meanwhile (the service says so and plays on without remote control), another is tried.
    func start(_ test: XCTestCase) throws {
        for _ in 0..<3 {
            port = try Self.freePort()
            service.extraSections = "[remote]\nlisten = \(listen)\nport = \(port)\n" + (password.map { "password = \($0)\n" } ?? "") + "\n" + extraStations
            try service.writeConfig(volume: 80)
            try service.start()
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if Self.connects(port) { return }
                usleep(50_000)
            }
            service.stopProcess()
        }
        XCTFail("the service never listened on its port")
    }

    func stop() { service.stopProcess() }

    /// A port of 127.0.0.1 free now (bound to 0, read, let go).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw NSError(domain: "bind", code: Int(errno)) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func connects(_ port: Int) -> Bool {
        let fd = tcpConnect(port)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    /// A blocking TCP connection to 127.0.0.1:`port`, or -1.
    static func tcpConnect(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// `mpc -h PASSWORD@127.0.0.1 -p PORT words…`.
    func mpc(_ words: String...) throws -> PlayolaRun {
        try Self.run("/usr/bin/mpc", ["-h", (password.map { $0 + "@" } ?? "") + "127.0.0.1", "-p", "\(port)"] + words)
    }

    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/mpd_client.py").path

    /// `Tests/Support/mpd_client.py`'s steps, by name.
    func python(_ scenario: String, _ argument: String? = nil) throws -> [String: [String: Any]] {
        let run = try Self.run("/usr/bin/python3", pythonArguments(scenario, argument))
        XCTAssertEqual(run.status, 0, run.error)
        return Self.steps(run.out)
    }

    func pythonArguments(_ scenario: String, _ argument: String? = nil) -> [String] {
        [Self.clientScript, "127.0.0.1", "\(port)", password ?? "", scenario] + (argument.map { [$0] } ?? [])
    }

    static func steps(_ json: String) -> [String: [String: Any]] {
        let steps = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [[String: Any]] ?? []
        return Dictionary(steps.map { ($0["step"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> PlayolaRun {
        try PlayolaRun(arguments, tool: tool)
    }
}

/// One raw MPD connection, for what the clients hide: timings, idle, hostile input.
final class MPDConnection {
    let fd: Int32
    private var pending: [UInt8] = []

    init(port: Int) throws {
        fd = RemoteService.tcpConnect(port)
        guard fd >= 0 else { throw NSError(domain: "connect", code: Int(errno)) }
    }

    deinit { close(fd) }

    func send(_ text: String) { Self.send(text, to: fd) }

    /// As much of `text` as the peer takes before it closes (a socket shared with a thread of its own).
    static func send(_ text: String, to fd: Int32) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// The next line, or nil at the end of the stream or `seconds` from now.
    func line(within seconds: Double = 5) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let newline = pending.firstIndex(of: 10) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return text
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let got = recv(fd, &chunk, chunk.count, 0)
            guard got > 0 else { return nil }
            pending += chunk[0..<got]
        }
    }

    /// Lines up to and including the one that ends an answer (`OK` or `ACK …`).
    func answer(within seconds: Double = 5) -> [String] {
        var lines: [String] = []
        while let line = line(within: seconds) {
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { break }
        }
        return lines
    }
}
