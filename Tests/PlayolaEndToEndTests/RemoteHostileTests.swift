@testable import PlayolaRemote
@testable import PlayolaAppliance
import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 29, item 2, "must be shown": what hostile network clients cost. 300 connections that say nothing,
/// a 10 MB line, a client that sends and never reads: `status` still answers within 1 s, the clients waiting
/// in idle keep their places and hear the next change, and the audio plays on. With `listen = off` the
/// service listens on no TCP port at all.
final class RemoteHostileTests: XCTestCase {
    func testSilentConnectionsAHugeLineAndAClientThatNeverReadsLeaveStatusAndTheAudio() throws {
        let remote = try RemoteService()
        try remote.start(self)
        defer { remote.stop() }
        let service = remote.service
        try service.waitUntilSteady(self)
        let pid = try XCTUnwrap(service.process?.processIdentifier)
        let rssBefore = try Self.rss(pid)
        let cpuBefore = try StreamFloodServiceTests.cpuSeconds(of: pid), began = Date(), capturedBefore = service.captureSeconds

        // Clients waiting in idle, as phones do: they keep their places.
        let idlers = try (0..<20).map { _ in try MPDConnection(port: remote.port) }
        for idler in idlers {
            XCTAssertEqual(idler.line(), "OK MPD 0.23.0")
            idler.send("password \"\(RemoteService.password)\"\nidle player\n")
            XCTAssertEqual(idler.line(), "OK")
        }
        // 300 connections that say nothing: beyond the cap, each new one takes the place of the quietest.
        let silent = (0..<300).map { _ in RemoteService.tcpConnect(remote.port) }
        defer { silent.forEach { if $0 >= 0 { close($0) } } }
        XCTAssertTrue(silent.allSatisfy { $0 >= 0 }, "every connection is taken (the kernel's backlog, then the loop)")
        try waitUntil("the loop has taken them all") { Self.established(pid, port: remote.port) >= MPDLimits().clients }
        let held = Self.established(pid, port: remote.port)
        let rssHeld = try Self.rss(pid)
        // A 10 MB line: refused once it passes 16 KiB, and the connection closed; the rest is never read.
        let huge = try MPDConnection(port: remote.port)
        XCTAssertEqual(huge.line(), "OK MPD 0.23.0")
        let hugeFD = huge.fd
        let flood = Thread { MPDConnection.send(String(repeating: "x", count: 10 << 20), to: hugeFD) }
        flood.start()
        let refusal = huge.line(within: 5)
        XCTAssertEqual(refusal, "ACK [2@0] {} line longer than 16384 bytes; closing")
        XCTAssertNil(huge.line(within: 3), "closed after it")
        // A client that sends command after command and reads none of the answers.
        let deaf = try MPDConnection(port: remote.port)
        deaf.send("password \"\(RemoteService.password)\"\n")
        var flags = fcntl(deaf.fd, F_GETFL)
        flags |= O_NONBLOCK
        _ = fcntl(deaf.fd, F_SETFL, flags)
        let request = Array(String(repeating: "status\n", count: 1000).utf8)
        var sent = 0
        for _ in 0..<2000 {
            let count = request.withUnsafeBytes { Glibc.send(deaf.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break } // its socket is full: the service has stopped reading it
            sent += count
        }
        // They wait in the kernel's buffers (loopback's grow to megabytes), not the service's: it stops reading a
        // client once 64 KiB of answers wait for it.
        usleep(300_000)
        let rssDeaf = try Self.rss(pid)
        print("a client that never reads had sent \(sent / 7) status requests when its socket filled; the service's RSS grew \((rssDeaf - rssHeld) / 1024) KiB")
        XCTAssertLessThan(rssDeaf - rssHeld, 2 << 20, "what waits for it is bounded")

        // Beside all of them: status from a new client, within a second each time (mpc's start included).
        for _ in 0..<3 {
            let status = try remote.mpc("status")
            XCTAssertEqual(status.status, 0, status.error)
            XCTAssertTrue(status.out.contains("[playing]"), status.out)
            print("mpc status beside \(held) connections, a 10 MB line and a client that never reads: \(Int(status.seconds * 1000)) ms")
            XCTAssertLessThan(status.seconds, 1)
        }
        let control = try PlayolaRun(["status", "--json"] + service.configArguments, environment: service.fullEnvironment)
        XCTAssertEqual(control.status, 0)
        XCTAssertLessThan(control.seconds, 1)

        // The audio played on all along, at real-time pace, and the service did not spin.
        let seconds = Date().timeIntervalSince(began)
        let cpu = (try StreamFloodServiceTests.cpuSeconds(of: pid) - cpuBefore) / seconds
        XCTAssertEqual(service.captureSeconds - capturedBefore, seconds, accuracy: 0.3)
        XCTAssertGreaterThan(service.amplitude(400), 0.05)
        let perConnection = Double(rssHeld - rssBefore) / Double(held)
        print("remote: \(held) connections held; RSS \(rssBefore / 1024) KiB → \(rssHeld / 1024) KiB (\(Int(perConnection)) bytes a connection); the service used \(Int(cpu * 100)) % of a core over \(Int(seconds)) s")
        XCTAssertLessThan(cpu, 0.3, "no busy loop")
        XCTAssertLessThan(perConnection, Double(64 << 10))

        // The clients in idle kept their places and hear the next change.
        let next = try PlayolaRun(["next", "--json"] + service.configArguments, environment: service.fullEnvironment)
        XCTAssertEqual(next.status, 0)
        for (index, idler) in idlers.enumerated() {
            XCTAssertEqual(idler.line(within: 2), "changed: player", "idler \(index)")
        }
        withExtendedLifetime(deaf) {}
    }

    func testWithListenOffNoPortIsOpened() throws {
        // The default: no [remote] at all.
        let quiet = try ServiceTests.Service()
        try quiet.start()
        defer { quiet.stopProcess() }
        try quiet.waitUntilSteady(self)
        let pid = try XCTUnwrap(quiet.process?.processIdentifier)
        XCTAssertEqual(try Self.listening(pid), [], "ss -tlnp: no TCP socket of the service")
        // The same check sees the port when one is asked for.
        let remote = try RemoteService()
        try remote.start(self)
        defer { remote.stop() }
        let listening = try Self.listening(try XCTUnwrap(remote.service.process?.processIdentifier))
        XCTAssertEqual(listening, ["127.0.0.1:\(remote.port)"])
        // lan: every address, IPv6 and IPv4 on one socket; a client over IPv4 gets in.
        let lan = try RemoteService(listen: "lan")
        try lan.start(self)
        defer { lan.stop() }
        XCTAssertEqual(try Self.listening(try XCTUnwrap(lan.service.process?.processIdentifier)), ["*:\(lan.port)"])
        XCTAssertEqual(try lan.mpc("outputs").out, "Output 1 (playola_test) is enabled\n")
    }

    /// Garbage over the socket: each line is answered with one ACK (or the connection closed after one, as
    /// MPD closes on a line that is not its protocol), the service never spins, and status answers after it.
    func testGarbageLinesAreEachRefusedWithAnACK() throws {
        let remote = try RemoteService()
        try remote.start(self)
        defer { remote.stop() }
        let service = remote.service
        try service.waitUntilSteady(self)
        try waitUntil("the tone plays") { service.amplitude(400) > 0.05 }
        let pid = try XCTUnwrap(service.process?.processIdentifier)
        var generator = SeededGenerator(seed: 6600)
        let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz_ \"'\\:0123456789".utf8) + [0, 1, 0x7F, 0xC3, 0xA9, 0xFF, 0x0D, 0x09]
        var connection = try MPDConnection(port: remote.port)
        XCTAssertEqual(connection.line(), "OK MPD 0.23.0")
        connection.send("password \"\(RemoteService.password)\"\n")
        XCTAssertEqual(connection.answer(), ["OK"])
        var (acks, closes, oks) = (0, 0, 0)
        for _ in 0..<500 {
            let count = Int.random(in: 1..<60, using: &generator)
            var line = (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            line.removeAll { $0 == 10 }
            // Not a command that changes what plays, nor idle (which would wait), nor a list (which would gather).
            if let first = line.first, (0x61...0x7A).contains(first) { line.insert(UInt8(ascii: "x"), at: 0) }
            connection.send(String(decoding: line, as: UTF8.self) + "\n")
            let answer = connection.answer(within: 2)
            if answer.count == 1, answer[0].hasPrefix("ACK [") { acks += 1 } else if answer == ["OK"] { oks += 1 }
            else { XCTFail("\(line): \(answer)") }
            // A line MPD would close on: it did, after its ACK, which says so. Again, as a client would.
            if answer.first.map({ $0.hasSuffix("; closing") || $0.hasSuffix("Invalid word character") }) == true {
                XCTAssertNil(connection.line(within: 2), "closed after \(answer)")
                closes += 1
                connection = try MPDConnection(port: remote.port)
                XCTAssertEqual(connection.line(), "OK MPD 0.23.0")
                connection.send("password \"\(RemoteService.password)\"\n")
                XCTAssertEqual(connection.answer(), ["OK"])
            }
        }
        // Afterwards, with the last connection open: the service does not spin on anything the garbage left.
        let cpuBefore = try StreamFloodServiceTests.cpuSeconds(of: pid), began = Date()
        Thread.sleep(forTimeInterval: 2)
        let cpu = (try StreamFloodServiceTests.cpuSeconds(of: pid) - cpuBefore) / Date().timeIntervalSince(began)
        print("500 garbage lines: \(acks) ACKs, \(oks) OKs, \(closes) closes; then the service used \(Int(cpu * 100)) % of a core")
        XCTAssertEqual(acks + oks, 500)
        XCTAssertLessThan(cpu, 0.15)
        connection.send("status\n")
        XCTAssertEqual(connection.answer().last, "OK")
        XCTAssertGreaterThan(service.amplitude(400), 0.05, "still playing")
    }

    /// SIGHUP applies `[remote]`: off to a port, to another port, and off again, the audio playing on.
    func testAReloadOpensMovesAndClosesThePort() throws {
        let remote = try RemoteService()
        try remote.start(self)
        defer { remote.stop() }
        let service = remote.service
        try service.waitUntilSteady(self)
        try waitUntil("the tone plays") { service.amplitude(400) > 0.05 }
        let pid = try XCTUnwrap(service.process?.processIdentifier)
        let first = remote.port
        let second = try RemoteService.freePort()
        for (remoteSection, expected) in [("[remote]\nlisten = localhost\nport = \(second)\n", ["127.0.0.1:\(second)"]),
                                          ("[remote]\nlisten = off\nport = \(second)\n", []),
                                          ("[remote]\nlisten = localhost\nport = \(first)\n", ["127.0.0.1:\(first)"])] {
            service.extraSections = remoteSection
            try service.writeConfig(volume: 80)
            kill(pid, SIGHUP)
            try waitUntil("listening on \(expected)") { (try? Self.listening(pid)) == expected }
            XCTAssertGreaterThan(service.amplitude(400), 0.05, "still playing")
        }
        let current = try RemoteService.run("/usr/bin/mpc", ["-h", "127.0.0.1", "-p", "\(first)", "current"])
        XCTAssertEqual(current.out, "low: low\n", "no password now: every client may")
    }

    /// The local addresses of the TCP sockets `pid` listens on, from `ss -tlnp`.
    static func listening(_ pid: Int32) throws -> [String] {
        let run = try RemoteService.run("/usr/bin/ss", ["-H", "-tlnp"])
        XCTAssertEqual(run.status, 0, run.error)
        return run.out.split(separator: "\n").filter { $0.contains("pid=\(pid),") }.map { String($0.split(separator: " ", omittingEmptySubsequences: true)[3]) }
    }

    /// The service's established connections on `port` (`ss -tnp`).
    static func established(_ pid: Int32, port: Int) -> Int {
        guard let run = try? RemoteService.run("/usr/bin/ss", ["-H", "-tnp", "state", "established", "sport", "=", ":\(port)"]) else { return 0 }
        return run.out.split(separator: "\n").filter { $0.contains("pid=\(pid),") }.count
    }

    /// Resident bytes of `pid` (VmRSS).
    static func rss(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return (Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
    }
}
