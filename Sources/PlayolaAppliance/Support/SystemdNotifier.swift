import Glibc
import PlayolaEngine

/// Speaks systemd's notification protocol (sd_notify(3)) directly, so the appliance does not link
/// libsystemd: each message is one datagram of `KEY=value` lines sent to the socket named by
/// `NOTIFY_SOCKET`. Without that variable (run by hand, in tests, under another init) every call is a
/// no-op and returns false.
///
/// Sendable without a lock: every stored property is an immutable value, and concurrent `sendto` calls on
/// one datagram socket are atomic per datagram in the kernel.
package final class SystemdNotifier: Sendable {
    private let socket: Int32
    private let address: UnixSocketAddress?
    /// Seconds within which systemd expects `WATCHDOG=1`, or nil when the service has no watchdog.
    package let watchdogInterval: Double?

    var isEnabled: Bool { socket >= 0 }

    /// Reads the environment once, at start-up: getenv races with setenv, and nothing in the appliance sets
    /// these variables, so reading them early and never again is the safe way.
    package convenience init() {
        self.init(
            socketPath: Self.environment("NOTIFY_SOCKET"),
            watchdogMicroseconds: Self.environment("WATCHDOG_USEC"),
            watchdogPID: Self.environment("WATCHDOG_PID")
        )
    }

    /// The values of `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`, passed in so tests need not
    /// mutate the process environment.
    init(socketPath: String?, watchdogMicroseconds: String? = nil, watchdogPID: String? = nil, pid: pid_t = getpid()) {
        // `/path` or `@abstract`; anything else (unset, empty, relative, newer systemd's `vsock:`, too long): nothing to notify.
        guard let address = socketPath.flatMap(UnixSocketAddress.init(named:)) else {
            (socket, self.address, watchdogInterval) = (-1, nil, nil)
            return
        }
        // CLOEXEC: a child the appliance might start must not inherit a way to speak for the service.
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if socket >= 0 {
            // Blocking like libsystemd (READY=1 must not be dropped), but bounded: a wedged manager must not
            // stall the thread that feeds the watchdog or stops the player.
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            _ = setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        self.socket = socket
        self.address = address
        // A watchdog without a socket to feed it through is of no use to the caller.
        watchdogInterval = socket >= 0 ? Self.watchdogInterval(microseconds: watchdogMicroseconds, pid: watchdogPID, ownPID: pid) : nil
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    @discardableResult
    package func ready(status: String) -> Bool { send("READY=1\nSTATUS=\(Self.oneLine(status))") }

    @discardableResult
    package func status(_ text: String) -> Bool { send("STATUS=\(Self.oneLine(text))") }

    @discardableResult
    package func watchdog() -> Bool { send("WATCHDOG=1") }

    @discardableResult
    package func stopping() -> Bool { send("STOPPING=1") }

    /// systemd ≥ 253 matches the reload to this timestamp (and 252, Debian 12's, ignores the extra line).
    /// The service must send `ready(status:)` again once the reload is done.
    @discardableResult
    package func reloading() -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        return send("RELOADING=1\nMONOTONIC_USEC=\(microseconds)")
    }

    /// Sends one datagram; false when there is no socket or the manager did not take it.
    @discardableResult
    func send(_ message: String) -> Bool {
        guard socket >= 0, let address else { return false }
        let bytes = Array(message.utf8)
        // Unconnected sendto on every message: after `systemctl daemon-reexec` the manager binds a new socket
        // at the same address, which a connected socket would no longer reach.
        // MSG_NOSIGNAL: a closed peer must not kill the appliance with SIGPIPE.
        let sent = try? retryOnInterrupt { address.withSockaddr { sendto(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) } }
        return sent == bytes.count
    }

    /// sd_watchdog_enabled(3)'s rules: a positive integer count of microseconds, ignored when
    /// `WATCHDOG_PID` names another process (the variables leaked to a child of the service).
    static func watchdogInterval(microseconds: String?, pid: String?, ownPID: pid_t) -> Double? {
        guard let microseconds, let value = UInt64(microseconds), value > 0 else { return nil }
        if let pid, !pid.isEmpty {
            guard let watchdogPID = pid_t(pid), watchdogPID == ownPID else { return nil }
        }
        return Double(value) / 1_000_000
    }

    /// A newline in STATUS would start a new assignment, letting text (a track title from the network)
    /// speak for the service, e.g. `READY=1` or `MAINPID=`.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
