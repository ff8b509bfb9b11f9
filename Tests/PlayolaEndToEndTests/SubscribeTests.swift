@testable import PlayolaControl
import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 29, item 3: `subscribe` on the control socket streams one JSON line per change, as it happens, past
/// the 10 s a connection is otherwise served; a subscriber that stops reading is closed, not waited for.
final class SubscribeTests: XCTestCase {
    /// Lines as they arrive on one subscribed connection, read on a thread of their own.
    final class Subscriber: @unchecked Sendable {
        // @unchecked Sendable: `lines` and `closed` are only touched under `lock`; `fd` is written once, in init.
        let fd: Int32
        private let lock = NSLock()
        private var lines: [(at: Date, text: String)] = []
        private var closed = false

        init(_ socketPath: String, read: Bool = true) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in socketPath.utf8.enumerated() { raw[index] = byte } }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { throw NSError(domain: "connect", code: Int(errno)) }
            _ = "subscribe\n".withCString { send(fd, $0, 10, Int32(MSG_NOSIGNAL)) }
            guard read else { return }
            Thread.detachNewThread { [self] in
                var pending = Data()
                var chunk = [UInt8](repeating: 0, count: 65536)
                while true {
                    let got = recv(fd, &chunk, chunk.count, 0)
                    guard got > 0 else { break }
                    pending.append(contentsOf: chunk[0..<got])
                    while let newline = pending.firstIndex(of: 10) {
                        let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        lock.withLock { lines.append((Date(), text)) }
                    }
                }
                lock.withLock { closed = true }
            }
        }

        var received: [(at: Date, text: String)] { lock.withLock { lines } }
        var isClosed: Bool { lock.withLock { closed } }

        /// The JSON of each line.
        var reports: [[String: Any]] {
            received.compactMap { try? JSONSerialization.jsonObject(with: Data($0.text.utf8)) as? [String: Any] }
        }

        deinit { close(fd) }
    }

    func testEachChangeIsOneLineAsItHappensAndTheStreamOutlivesTheConnectionLifetime() throws {
        let service = try ServiceTests.Service()
        try service.start()
        defer { service.stopProcess() }
        try service.waitUntilSteady(self)
        let subscriber = try Subscriber(service.socket)
        // The status now; a change may follow at once (the device's format, told a moment after it opened).
        try waitUntil("the status now") { !subscriber.reports.isEmpty }
        let first = try XCTUnwrap(subscriber.reports.first)
        XCTAssertEqual(first["ok"] as? Bool, true)
        XCTAssertEqual(first["station"] as? String, "low")
        XCTAssertNil(first["changed"], "the first line is the status as it is, not a change")

        let asked = Date()
        let linesBefore = subscriber.received.count
        XCTAssertEqual(try service.client("volume", "40", "--json").trimmingCharacters(in: .whitespacesAndNewlines), #"{"ok":true}"#)
        let isVolume = { (report: [String: Any]) in (report["changed"] as? [String])?.contains("volume") == true }
        try waitUntil("the volume's line") { subscriber.reports.dropFirst(linesBefore).contains(where: isVolume) }
        let index = try XCTUnwrap(subscriber.reports.indices.first { $0 >= linesBefore && isVolume(subscriber.reports[$0]) })
        let volume = subscriber.reports[index]
        XCTAssertEqual(volume["changed"] as? [String], ["volume"])
        XCTAssertEqual(volume["volume"] as? Int, 40)
        let latency = subscriber.received[index].at.timeIntervalSince(asked)
        print("subscribe: the volume's change line \(Int(latency * 1000)) ms after `playola volume 40` was started")
        XCTAssertLessThan(latency, 0.5, "pushed as it happens (the client's process start included)")

        try service.client("next")
        try waitUntil("the station's line") { subscriber.reports.contains { ($0["changed"] as? [String])?.contains("station") == true } }
        let station = try XCTUnwrap(subscriber.reports.first { ($0["changed"] as? [String])?.contains("station") == true })
        XCTAssertEqual(station["station"] as? String, "high")
        // A folder's station plays within milliseconds: its `loading` may be over before the feed looks.
        XCTAssertTrue(["loading", "playing"].contains(station["state"] as? String), "\(station)")
        try waitUntil("high plays") { subscriber.reports.last?["state"] as? String == "playing" && subscriber.reports.last?["station"] as? String == "high" }

        // Past the 10 s any other connection is served: still subscribed, still told.
        let lifetime = ControlLoop.Limits().lifetime
        Thread.sleep(until: asked.addingTimeInterval(lifetime + 1))
        XCTAssertFalse(subscriber.isClosed)
        let before = subscriber.received.count
        try service.client("stop")
        let isStopped = { (report: [String: Any]) in report["state"] as? String == "idle" }
        try waitUntil("the stop's line after \(lifetime) s") { subscriber.reports.dropFirst(before).contains(where: isStopped) }
        let stopped = try XCTUnwrap(subscriber.reports.dropFirst(before).first(where: isStopped))
        XCTAssertEqual(stopped["changed"] as? [String], ["state", "spin", "queue"])
        // Nothing but changes: as many lines as changes, none repeated.
        let changes = subscriber.reports.dropFirst().map { $0["changed"] as? [String] ?? [] }
        XCTAssertTrue(changes.allSatisfy { !$0.isEmpty }, "\(changes)")
    }

    func testASubscriberThatStopsReadingIsClosedAndStatusStillAnswers() throws {
        let service = try ServiceTests.Service()
        try service.start()
        defer { service.stopProcess() }
        try service.waitUntilSteady(self)
        let stuck = try Subscriber(service.socket, read: false)
        // Its socket buffers fill, then the service's backlog for it: each change line is a status of ~1-2 KB.
        var size: Int32 = 4096
        XCTAssertEqual(setsockopt(stuck.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)), 0)
        var closed = false
        let began = Date()
        for step in 0..<400 where !closed {
            let status = try PlayolaRun(["volume", "\(step % 2 == 0 ? 30 : 31)", "--json"] + service.configArguments, environment: service.fullEnvironment)
            XCTAssertEqual(status.status, 0, status.error)
            // The service's end closed shows as a hang-up, without reading what waits in the socket.
            var entry = pollfd(fd: stuck.fd, events: 0, revents: 0)
            closed = poll(&entry, 1, 0) > 0 && Int32(entry.revents) & POLLHUP != 0
            if closed { print("a subscriber that does not read: closed after \(step + 1) changes, \(Int(Date().timeIntervalSince(began))) s") }
        }
        XCTAssertTrue(closed, "the subscriber that never reads was closed")
        let answer = try PlayolaRun(["status", "--json"] + service.configArguments, environment: service.fullEnvironment)
        XCTAssertEqual(answer.status, 0)
        XCTAssertLessThan(answer.seconds, 1)
    }
}
