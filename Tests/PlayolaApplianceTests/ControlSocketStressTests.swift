import Foundation
@testable import PlayolaAppliance
import XCTest

/// Issue 12, "must be shown" 4: the control socket under hostile local clients. The real service
/// (`playola run`) and the real client (`playola status`, `playola audio-device`) as separate processes.
final class ControlSocketStressTests: XCTestCase {
    func playola(_ arguments: [String]) throws -> PlayolaRun { try PlayolaRun(arguments) }

    /// A connected, non-blocking client socket.
    func connectTo(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(result, 0, "connect: \(String(cString: strerror(errno)))")
        return fd
    }

    /// What arrives on `fd` within `seconds` (until EOF).
    func received(_ fd: Int32, within seconds: Double) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let got = recv(fd, &chunk, chunk.count, 0)
            if got <= 0 { break }
            bytes += chunk[0..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A service started and answering on its control socket, before the hostile clients come.
    func answeringService() throws -> ServiceTests.Service {
        let service = try ServiceTests.Service()
        try service.start()
        XCTAssertEqual(try playola(["status", "--socket", service.socket]).status, 0)
        return service
    }

    func testStatusAnswersWithin1sBeside200IdleConnectionsAndAClientThatNeverReads() throws {
        let service = try answeringService()
        defer { service.stopProcess() }
        let socketPath = service.socket

        let idle = (0..<200).map { _ in connectTo(socketPath) }
        defer { idle.forEach { close($0) } }
        // A client that floods requests and never reads an answer: its socket fills, then it only waits.
        let flooder = connectTo(socketPath)
        defer { close(flooder) }
        let requests = Array(String(repeating: "status\n", count: 20_000).utf8)
        var flooded = 0
        while flooded < requests.count {
            let sent = requests.withUnsafeBytes { send(flooder, $0.baseAddress! + flooded, requests.count - flooded, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            flooded += sent
        }
        XCTAssertGreaterThan(flooded, 0)
        usleep(200_000) // the loop has accepted them all and answered the flooder until its socket is full

        for _ in 0..<3 {
            let answer = try playola(["status", "--json", "--socket", socketPath])
            XCTAssertEqual(answer.status, 0, answer.error)
            XCTAssertLessThan(answer.seconds, 1.0, "status beside 201 hostile connections")
            print("status beside 200 idle connections and a flooder: \(Int(answer.seconds * 1000)) ms (process start included)")
            let report = try JSONSerialization.jsonObject(with: Data(answer.out.utf8)) as? [String: Any]
            XCTAssertEqual(report?["ok"] as? Bool, true)
            XCTAssertEqual(report?["station"] as? String, "low")
        }
        // The udev helper gets through too.
        let device = try playola(["audio-device", "--socket", socketPath])
        XCTAssertEqual(device.status, 0, device.error)
        XCTAssertLessThan(device.seconds, 1.0)

        // The idle clients are dropped at their deadline (2 s), each told why.
        let told = received(idle[0], within: 3)
        XCTAssertTrue(told.contains(#""ok":false"#) && told.contains("no complete request within"), told)
    }

    func testConnectionsBeyondTheCapAreRefusedAtOnceAndLongRequestsAreRefused() throws {
        let service = try answeringService()
        defer { service.stopProcess() }
        let socketPath = service.socket

        let limit = ControlLoop.Limits().clients
        let held = (0..<limit).map { _ in connectTo(socketPath) }
        defer { held.forEach { close($0) } }
        usleep(100_000)
        let extra = connectTo(socketPath)
        defer { close(extra) }
        let began = Date()
        let refusal = received(extra, within: 1)
        XCTAssertLessThan(Date().timeIntervalSince(began), 0.9, "refused at once, not at a deadline")
        XCTAssertEqual(ControlReply.isOK(refusal.trimmingCharacters(in: .whitespacesAndNewlines)), false, refusal)
        XCTAssertTrue(refusal.contains("too many connections"), refusal)
        held.forEach { close($0) }

        usleep(200_000)
        let long = connectTo(socketPath)
        defer { close(long) }
        let junk = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        _ = junk.withUnsafeBytes { send(long, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let answer = received(long, within: 1)
        XCTAssertTrue(answer.contains("request longer than 4096 bytes"), answer)

        // An error answer whose text holds quotes and `"ok":true` is still an error to the client.
        let play = try playola(["play", #"x","ok":true,"y"#, "--json", "--socket", socketPath])
        XCTAssertEqual(play.status, 1, play.out)
        XCTAssertEqual(ControlReply.isOK(play.out.trimmingCharacters(in: .whitespacesAndNewlines)), false)
        XCTAssertTrue(play.out.contains(#"no station 'x\",\"ok\":true,\"y'"#), play.out)
    }

    /// A service that accepts nothing (its backlog full, or wedged): the client and the udev helper give up
    /// after 5 s, say so, and exit non-zero.
    func testTheClientAndTheUdevHelperTimeOutAgainstAServiceThatNeverAnswers() throws {
        let path = NSTemporaryDirectory() + "playola-silent-\(UUID().uuidString.prefix(8)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(listen(fd, 1), 0) // connections queue in the backlog and are never accepted or answered
        for command in ["status", "audio-device"] {
            let result = try playola([command, "--socket", path])
            XCTAssertEqual(result.status, ControlClient.Exit.unreachable)
            XCTAssertTrue(result.error.contains("timed out after 5.0 s"), result.error)
            XCTAssertEqual(result.seconds, 5, accuracy: 1)
        }
        // In process, with a short timeout, the same failure is typed.
        XCTAssertThrowsError(try ControlClient.exchange("status", socketPath: path, timeout: 0.3)) { error in
            guard case ControlClient.Failure.timedOut = error else { return XCTFail("\(error)") }
        }
    }
}
