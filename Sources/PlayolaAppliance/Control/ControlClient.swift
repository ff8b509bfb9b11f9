import FoundationEssentials
import Glibc
import PlayolaApplianceSupport
import PlayolaEngine

/// `playola status|play|next|…` (and the udev rule's `playola audio-device`): sends one command line to
/// the service's socket and says what now happens (`StatusText`), or prints the answer with `--json`.
/// Everything — connecting, sending, the answer — happens within `timeout` seconds: a busy or wedged
/// service is reported, never waited on forever.
package enum ControlClient {
    package static let defaultTimeout = 5.0
    /// More than any answer the service gives; a peer that sends more is not the service.
    package static let maximumAnswer = 1 << 20

    package enum Failure: Error, CustomStringConvertible {
        case unreachable(path: String, reason: String)
        case timedOut(path: String, seconds: Double, stage: String)
        case broken(path: String, reason: String)

        package var description: String {
            switch self {
            case .unreachable(let path, let reason): "cannot reach the service at \(path): \(reason) (is `playola run` running?)"
            case .timedOut(let path, let seconds, let stage): "timed out after \(seconds) s \(stage) the service at \(path)"
            case .broken(let path, let reason): "the service at \(path): \(reason)"
            }
        }
    }

    /// The exit statuses of the client commands (doc/operating.md lists them).
    package enum Exit {
        package static let done: Int32 = 0
        /// The service answered with an error (an unknown station, a volume out of range).
        package static let refused: Int32 = 1
        /// The command line is wrong (main.swift's usage errors).
        package static let usage: Int32 = 2
        /// The service could not be reached, did not answer in time, or answered something that is not its protocol.
        package static let unreachable: Int32 = 3
    }

    /// Sends `request`. With `json`, prints the service's answer as it is, or a failure of the same shape
    /// (`{"ok":false,"error":…}`) when there is none; without, `status` prints `StatusText`'s lines and any
    /// other command one line saying what now happens, and errors go to standard error. Returns an `Exit` status.
    package static func run(_ request: ControlRequest, socketPath: String, json: Bool = false, timeout: Double = defaultTimeout) -> Int32 {
        do throws(Failure) {
            let text = try exchange(request.line, socketPath: socketPath, timeout: timeout)
            guard let reply = ControlReply.decode(text) else {
                throw .broken(path: socketPath, reason: "its answer is not a JSON object with a boolean \"ok\": \(LogField.escaped(String(text.prefix(200))))")
            }
            if json { Console.out(text) }
            if let note = ControlReply.configNote(text) { Console.error("playola: \(note)") }
            guard reply.ok else {
                if !json { Console.error("playola: \(reply.error ?? "the service refused the command")") }
                return Exit.refused
            }
            // udev's helper has nothing for a person to read.
            if json || request == .audioDevice { return Exit.done }
            if request == .status {
                StatusText.lines(try decodeStatus(text, socketPath: socketPath)).forEach(Console.out)
                return Exit.done
            }
            // The command's effect, as the service now reports it (a station may take a moment to load).
            var report = try statusReport(socketPath: socketPath, timeout: timeout)
            let deadline = monotonicSeconds() + 3
            while report.state == .loading && monotonicSeconds() < deadline {
                usleep(200_000)
                report = try statusReport(socketPath: socketPath, timeout: timeout)
            }
            // The command was taken, but the station it started cannot play: an error for the person too.
            if report.state == .error && request.startsAStation {
                Console.error("playola: \(StatusText.outcome(of: request, report))")
                return Exit.refused
            }
            Console.out(StatusText.outcome(of: request, report))
            return Exit.done
        } catch {
            if json { Console.out(ControlReply.line(ControlReply.failure(error.description))) } else { Console.error("playola: \(error)") }
            return Exit.unreachable
        }
    }

    /// The service's `status` answer, decoded.
    package static func statusReport(socketPath: String, timeout: Double) throws(Failure) -> StatusReport {
        try decodeStatus(try exchange("status", socketPath: socketPath, timeout: timeout), socketPath: socketPath)
    }

    private static func decodeStatus(_ text: String, socketPath: String) throws(Failure) -> StatusReport {
        guard let report = try? JSONDecoder().decode(StatusReport.self, from: Data(text.utf8)) else {
            throw .broken(path: socketPath, reason: "its status answer is not the status JSON: \(text.prefix(200))")
        }
        return report
    }

    /// Sends `line` and returns the answer, trimmed.
    package static func exchange(_ line: String, socketPath: String, timeout: Double) throws(Failure) -> String {
        let deadline = monotonicSeconds() + timeout
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .unreachable(path: socketPath, reason: Errno.current.description) }
        defer { close(fd) }
        try connect(fd, socketPath, deadline: deadline, timeout: timeout)
        let request = Array((line + "\n").utf8)
        var sent = 0
        while sent < request.count {
            try wait(fd, for: POLLOUT, until: deadline, timeout: timeout, stage: "sending to", path: socketPath)
            do {
                sent += try retryOnInterrupt { request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) } }
            } catch {
                guard error == .wouldBlock else { throw .broken(path: socketPath, reason: "sending: \(error)") }
            }
        }
        shutdown(fd, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            try wait(fd, for: POLLIN, until: deadline, timeout: timeout, stage: "waiting for an answer from", path: socketPath)
            let got: Int
            do {
                got = try retryOnInterrupt { chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            } catch {
                guard error == .wouldBlock else { throw .broken(path: socketPath, reason: "reading: \(error)") }
                continue
            }
            if got == 0 { break }
            answer += chunk[0..<got]
            guard answer.count <= maximumAnswer else { throw .broken(path: socketPath, reason: "an answer of more than \(maximumAnswer) bytes") }
        }
        let text = String(decoding: answer, as: UTF8.self).trimmingWhitespace()
        guard !text.isEmpty else { throw .broken(path: socketPath, reason: "closed the connection without an answer") }
        return text
    }

    /// A non-blocking connect; a full listen backlog (EAGAIN on a Unix socket) is retried until the deadline.
    package static func connect(_ fd: Int32, _ path: String, deadline: Double, timeout: Double) throws(Failure) {
        guard let address = UnixSocketAddress(path: path) else {
            throw .unreachable(path: path, reason: "the path is too long for a Unix socket")
        }
        while true {
            let failure: Errno
            do {
                _ = try retryOnInterrupt { address.withSockaddr { Glibc.connect(fd, $0, $1) } }
                return
            } catch {
                failure = error
            }
            switch failure.rawValue {
            case EINPROGRESS:
                return try wait(fd, for: POLLOUT, until: deadline, timeout: timeout, stage: "connecting to", path: path)
            case EAGAIN:
                guard monotonicSeconds() < deadline else { throw .timedOut(path: path, seconds: timeout, stage: "connecting to") }
                usleep(20_000)
            default:
                throw .unreachable(path: path, reason: failure.description)
            }
        }
    }

    package static func wait(_ fd: Int32, for event: Int32, until deadline: Double, timeout: Double, stage: String, path: String) throws(Failure) {
        while true {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { throw .timedOut(path: path, seconds: timeout, stage: stage) }
            var entry = pollfd(fd: fd, events: Int16(event), revents: 0)
            // Not retryOnInterrupt: after a signal the loop waits only for what is left of the timeout.
            let ready = poll(&entry, 1, Int32(left * 1000) + 1)
            if ready > 0 { return }
            if ready < 0, Errno.current != .interrupted { throw .broken(path: path, reason: Errno.current.description) }
        }
    }
}
