import FoundationEssentials
import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

/// `playola status --watch`: one line for each change of what the service does (state, station, what plays,
/// volume, the device), until interrupted. It subscribes (`subscribe` on the control socket), so a change
/// shows as it happens, and the service pushes nothing but changes. While the service cannot be reached it says
/// so once and tries again twice a second, so a restart shows as such.
package enum StatusWatch {
    package static let retryInterval: useconds_t = 500_000

    /// Never returns unless `changes` is given (tests): then after that many lines.
    package static func run(socketPath: String, json: Bool, changes: Int? = nil) -> Int32 {
        var last: String?
        var printed = 0
        func say(_ line: String, machine: String? = nil) {
            guard line != last || (json && machine != nil) else { return }
            if line.hasPrefix("playola: ") {
                Console.error(line)
            } else {
                Console.out(json ? machine ?? line : "\(clockTime())  \(line)")
            }
            last = line
            printed += 1
        }
        while changes.map({ printed < $0 }) ?? true {
            do throws(ControlClient.Failure) {
                try follow(socketPath) { (text: String) throws(ControlClient.Failure) -> Bool in
                    guard let report = try? JSONDecoder().decode(StatusReport.self, from: Data(text.utf8)) else {
                        throw ControlClient.Failure.broken(path: socketPath, reason: "a line that is not the status JSON: \(LogField.escaped(String(text.prefix(200))))")
                    }
                    say(summary(report), machine: text)
                    return changes.map { printed < $0 } ?? true
                }
                if let changes, printed >= changes { break }
                say("playola: the service at \(socketPath) closed the connection")
            } catch {
                say("playola: \(error)")
            }
            usleep(retryInterval)
        }
        return ControlClient.Exit.done
    }

    /// Subscribes and hands each line to `line` until the service closes the connection or `line` says stop.
    /// Connecting and subscribing have `ControlClient.defaultTimeout`; then it waits for as long as it takes.
    private static func follow(_ path: String, _ line: (String) throws(ControlClient.Failure) -> Bool) throws(ControlClient.Failure) {
        let timeout = ControlClient.defaultTimeout
        let deadline = monotonicSeconds() + timeout
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(path: path, reason: Errno.current.description) }
        defer { close(fd) }
        try ControlClient.connect(fd, path, deadline: deadline, timeout: timeout)
        // Not shut for writing after it, as a one-shot exchange is: the loop takes a subscriber's hang-up for its end.
        let request = Array((ControlRequest.subscribe.line + "\n").utf8)
        var sent = 0
        while sent < request.count {
            try ControlClient.wait(fd, for: POLLOUT, until: deadline, timeout: timeout, stage: "subscribing to", path: path)
            let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 { sent += count } else if Errno.current != .wouldBlock && Errno.current != .interrupted {
                throw .broken(path: path, reason: "subscribing: \(Errno.current)")
            }
        }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, -1) > 0 else {
                if Errno.current == .interrupted { continue }
                throw .broken(path: path, reason: Errno.current.description)
            }
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got == 0 { return }
            if got < 0 {
                if Errno.current == .wouldBlock || Errno.current == .interrupted { continue }
                throw .broken(path: path, reason: "reading: \(Errno.current)")
            }
            pending += chunk[0..<got]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                guard try line(text) else { return }
            }
            guard pending.count <= ControlClient.maximumAnswer else {
                throw .broken(path: path, reason: "a line of more than \(ControlClient.maximumAnswer) bytes")
            }
        }
    }

    /// What is worth a line: the outcome line, with the volume and a missing device.
    package static func summary(_ report: StatusReport) -> String {
        var line = StatusText.outcome(of: nil, report) + " · volume \(report.volume)%"
        if !report.deviceAvailable { line += " · no device (\(report.device))" }
        return line
    }

    private static func clockTime() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
