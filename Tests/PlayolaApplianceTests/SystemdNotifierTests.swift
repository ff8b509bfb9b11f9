import Foundation
@testable import PlayolaApplianceSupport
@testable import PlayolaAppliance
import XCTest

final class SystemdNotifierTests: XCTestCase {
    /// Stands in for systemd's notification socket: a bound AF_UNIX datagram socket.
    private final class Listener {
        let fd: Int32
        let path: String
        private let directory: String?

        /// A file-system socket in a fresh temporary directory, or an abstract one when `abstractName` is given.
        init(abstractName: String? = nil) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
            var bytes: [UInt8]
            if let abstractName {
                directory = nil
                path = "@" + abstractName
                bytes = [0] + Array(abstractName.utf8)
            } else {
                let template = NSTemporaryDirectory() + "playola-notify-XXXXXX"
                var name = Array(template.utf8CString)
                guard mkdtemp(&name) != nil else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
                let created = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                directory = created
                path = created + "/notify"
                bytes = Array(path.utf8) + [0]
            }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno)!) }
            // A test that expects a datagram must fail, not hang, when none comes.
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit {
            close(fd)
            if let directory {
                unlink(path)
                rmdir(directory)
            }
        }

        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count >= 0 else { return nil }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }

        /// True when nothing is waiting, without waiting.
        func isEmpty() -> Bool {
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) < 0
        }
    }

    func testMessagesAreExactDatagrams() throws {
        let listener = try Listener()
        let notifier = SystemdNotifier(socketPath: listener.path)
        XCTAssertTrue(notifier.isEnabled)

        XCTAssertTrue(notifier.ready(status: "Playing Morning Chords"))
        XCTAssertEqual(listener.receive(), "READY=1\nSTATUS=Playing Morning Chords")
        XCTAssertTrue(notifier.status("Buffering"))
        XCTAssertEqual(listener.receive(), "STATUS=Buffering")
        XCTAssertTrue(notifier.watchdog())
        XCTAssertEqual(listener.receive(), "WATCHDOG=1")
        XCTAssertTrue(notifier.stopping())
        XCTAssertEqual(listener.receive(), "STOPPING=1")
        XCTAssertTrue(listener.isEmpty())
    }

    func testReloadingCarriesTheMonotonicClock() throws {
        let listener = try Listener()
        let notifier = SystemdNotifier(socketPath: listener.path)
        let before = monotonicMicroseconds()
        XCTAssertTrue(notifier.reloading())
        let after = monotonicMicroseconds()

        let message = try XCTUnwrap(listener.receive())
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 2, message)
        XCTAssertEqual(lines.first, "RELOADING=1")
        let stamp = try XCTUnwrap(lines.last.flatMap { $0.hasPrefix("MONOTONIC_USEC=") ? UInt64($0.dropFirst(15)) : nil }, message)
        XCTAssertGreaterThanOrEqual(stamp, before)
        XCTAssertLessThanOrEqual(stamp, after)
    }

    func testStatusCannotInjectAssignments() throws {
        let listener = try Listener()
        let notifier = SystemdNotifier(socketPath: listener.path)
        notifier.status("Song\nREADY=1\r\nMAINPID=1")
        XCTAssertEqual(listener.receive(), "STATUS=Song READY=1 MAINPID=1")
    }

    func testAbstractSocket() throws {
        let listener = try Listener(abstractName: "playola-test-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        XCTAssertTrue(listener.path.hasPrefix("@"))
        let notifier = SystemdNotifier(socketPath: listener.path)
        XCTAssertTrue(notifier.ready(status: "ok"))
        XCTAssertEqual(listener.receive(), "READY=1\nSTATUS=ok")
        XCTAssertTrue(notifier.watchdog())
        XCTAssertEqual(listener.receive(), "WATCHDOG=1")
    }

    func testNoSocketMeansNoOp() {
        for path in [nil, "", "relative/notify", "vsock:2:1234", "/" + String(repeating: "x", count: 200)] as [String?] {
            let notifier = SystemdNotifier(socketPath: path, watchdogMicroseconds: "10000000")
            XCTAssertFalse(notifier.isEnabled, "\(path ?? "nil")")
            XCTAssertFalse(notifier.ready(status: "x"))
            XCTAssertFalse(notifier.status("x"))
            XCTAssertFalse(notifier.watchdog())
            XCTAssertFalse(notifier.stopping())
            XCTAssertFalse(notifier.reloading())
            XCTAssertNil(notifier.watchdogInterval, "no socket, nothing to feed")
        }
    }

    func testNobodyListeningIsNotFatal() throws {
        let listener = try Listener()
        let notifier = SystemdNotifier(socketPath: listener.path + "-absent")
        XCTAssertTrue(notifier.isEnabled)
        XCTAssertFalse(notifier.watchdog())
    }

    func testDefaultInitReadsTheEnvironment() throws {
        let listener = try Listener()
        let names = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]
        let saved = names.map { getenv($0).map { String(cString: $0) } }
        defer {
            for (name, value) in zip(names, saved) {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        setenv("NOTIFY_SOCKET", listener.path, 1)
        setenv("WATCHDOG_USEC", "10000000", 1)
        setenv("WATCHDOG_PID", String(getpid()), 1)
        let notifier = SystemdNotifier()
        XCTAssertEqual(notifier.watchdogInterval, 10)
        XCTAssertTrue(notifier.watchdog())
        XCTAssertEqual(listener.receive(), "WATCHDOG=1")

        for name in names { unsetenv(name) }
        let unconfigured = SystemdNotifier()
        XCTAssertFalse(unconfigured.isEnabled)
        XCTAssertFalse(unconfigured.watchdog())
        XCTAssertTrue(listener.isEmpty())
    }

    func testWatchdogInterval() {
        let socket = "/run/systemd/notify"
        XCTAssertEqual(SystemdNotifier(socketPath: socket, watchdogMicroseconds: "10000000").watchdogInterval, 10)
        XCTAssertEqual(SystemdNotifier(socketPath: socket, watchdogMicroseconds: "2500000").watchdogInterval, 2.5)
        XCTAssertEqual(
            SystemdNotifier(socketPath: socket, watchdogMicroseconds: "10000000", watchdogPID: "4242", pid: 4242).watchdogInterval, 10
        )
        XCTAssertNil(SystemdNotifier(socketPath: socket, watchdogMicroseconds: "10000000", watchdogPID: "4243", pid: 4242).watchdogInterval)
        XCTAssertNil(SystemdNotifier(socketPath: socket, watchdogMicroseconds: "10000000", watchdogPID: "x", pid: 4242).watchdogInterval)
        XCTAssertNil(SystemdNotifier(socketPath: socket).watchdogInterval)
        for bad in ["", "0", "-5", "10s", "1e7", " 10"] {
            XCTAssertNil(SystemdNotifier(socketPath: socket, watchdogMicroseconds: bad).watchdogInterval, bad)
        }
    }

    func testGateFeedsWhileFramesAdvance() {
        checkGate([.feeds(0, progress: 1, at: 100), .feeds(240_000, progress: 2, at: 105), .feeds(480_000, progress: 3, at: 110)])
    }

    func testGateStarvesTheWatchdogWhenOutputIsStuck() {
        checkGate([
            .feeds(240_000, progress: 4, at: 100),
            .starves(240_000, progress: 5, at: 105),
            .starves(240_000, progress: 6, at: 110),
            // Output that recovers on its own feeds again.
            .feeds(480_000, progress: 7, at: 115),
        ])
    }

    func testGateFeedsWhileDeliberatelyIdle() {
        checkGate([.feeds(1000, progress: 8, at: 0)] + (1 ... 5).map { tick in Tick.feeds(1000, progress: 9, idle: true, at: Double(tick) * 5) } + [
            // Playback resumed just before this tick and has not reached the sink yet: within the tolerance.
            .feeds(1000, progress: 10, at: 25.5),
            // Still nothing a whole tick later: stuck.
            .starves(1000, progress: 11, at: 30),
        ])
    }

    func testGateTreatsAReopenedSinkAsAFreshStart() {
        checkGate([.feeds(480_000, progress: 12, at: 0), .feeds(0, progress: 13, at: 5), .starves(0, progress: 14, at: 10)])
    }

    func testGateStarvesTheWatchdogWhenDecodeStallsWhileSilencePlays() {
        checkGate([
            // The render thread keeps writing (silence), but the decode thread's pass counter stands still.
            .feeds(0, progress: 7, at: 100),
            .feeds(48_000, progress: 8, at: 101),
            .feeds(96_000, progress: 8, at: 101.5), // within the tolerance (two of the decode thread's steady looks)
            .feeds(144_000, progress: 8, at: 102.5),
            .starves(168_000, progress: 8, at: 103.5),
            .starves(192_000, progress: 8, at: 105),
            // Stopped on purpose: fed whatever the decode side does.
            .feeds(240_000, progress: 8, idle: true, at: 106),
            // Decoding again: fed again.
            .feeds(288_000, progress: 9, at: 107),
        ])
    }

    /// One watchdog tick: what the gate is told, and whether it must feed; `line` is the tick's, for the failure.
    private struct Tick {
        var frames: Int64, progress: Int64, idle: Bool, now: Double, feeds: Bool, line: UInt

        static func feeds(_ frames: Int64, progress: Int64, idle: Bool = false, at now: Double, line: UInt = #line) -> Tick {
            Tick(frames: frames, progress: progress, idle: idle, now: now, feeds: true, line: line)
        }

        static func starves(_ frames: Int64, progress: Int64, idle: Bool = false, at now: Double, line: UInt = #line) -> Tick {
            Tick(frames: frames, progress: progress, idle: idle, now: now, feeds: false, line: line)
        }
    }

    /// A fresh gate through `ticks` in order, each answer checked.
    private func checkGate(_ ticks: [Tick]) {
        var gate = WatchdogGate()
        for tick in ticks {
            let fed = gate.shouldFeed(framesPlayed: tick.frames, decodeProgress: tick.progress, deliberatelyIdle: tick.idle, now: tick.now)
            XCTAssertEqual(fed, tick.feeds, "at \(tick.now) s", line: tick.line)
        }
    }

    private func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
