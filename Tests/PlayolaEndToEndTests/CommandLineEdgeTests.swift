import Foundation
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
@testable import PlayolaGPIO
import XCTest
import PlayolaTestSupport

/// Issue 25: the edges of the command line, each with its exit status and message, from the real binary.
final class CommandLineEdgeTests: XCTestCase {
    /// A Unix socket that listens and never accepts: whatever connects to it waits in its backlog, where
    /// `wasContacted` finds it.
    final class WatchedSocket {
        let path = NSTemporaryDirectory() + "playola-watched-\(UUID().uuidString.prefix(8)).sock"
        private let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)

        init() throws {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        var wasContacted: Bool {
            let client = accept(fd, nil, nil)
            if client >= 0 { close(client) }
            return client >= 0
        }

        deinit {
            close(fd)
            unlink(path)
        }
    }

    func testAWrongCommandLineExits2WithUsageOnStandardErrorAndNeverReachesTheService() throws {
        let service = try WatchedSocket()
        let socket = ["--socket", service.path]
        let cases: [(arguments: [String], says: String)] = [
            (["status", "--bogus"] + socket, "playola status: unknown option --bogus\n"),
            (["play", "--watch"] + socket, "playola play: unknown option --watch\n"),
            (["next", "--ago", "1h"] + socket, "playola next: unknown option --ago\n"),
            (["play", "--ago"] + socket, "playola play: --ago needs a value\n"),
            (["status", "extra"] + socket, "playola: status takes no arguments, not 'extra'\n"),
            (["play", "porch", "jazz"] + socket, "playola: play takes one station, not 'jazz' too\n"),
            (["volume", "loud"] + socket, "playola: volume takes a percentage from 0 to 100\n"),
            (["frobnicate"] + socket, "playola: unknown command 'frobnicate'\n"),
            (["version", "--bogus"], "playola version: unknown option --bogus\n"),
            // Without the check, these two would start: the service (here without a config: 78), a render.
            (["run", "--bogus", "--config", service.path + ".ini"], "playola run: unknown option --bogus\n"),
            (["render", "--bogus", "--out", "null"], "playola render: unknown option --bogus\n"),
        ]
        for (arguments, says) in cases {
            let outcome = try PlayolaRun(arguments)
            XCTAssertEqual(outcome.status, ControlClient.Exit.usage, "\(arguments): \(outcome.error)")
            XCTAssertEqual(outcome.out, "", "\(arguments)")
            XCTAssertTrue(outcome.error.hasPrefix(says), "\(arguments): \(outcome.error)")
            XCTAssertTrue(outcome.error.contains("usage: playola"), "\(arguments): the usage follows: \(outcome.error)")
        }
        XCTAssertTrue(try PlayolaRun(["run", "--bogus"]).error.contains("usage: playola run ["), "run's own usage")
        XCTAssertFalse(service.wasContacted, "a wrong command line reached the service")

        // `playola` alone is a wrong command line too: the usage on standard error, exit 2.
        let bare = try PlayolaRun([])
        XCTAssertEqual(bare.status, ControlClient.Exit.usage)
        XCTAssertEqual(bare.out, "")
        XCTAssertTrue(bare.error.hasPrefix("usage: playola <command> [options]\n"), bare.error)
        // Asking for it is not: the usage on standard output, exit 0.
        for asked in [["help"], ["--help"], ["-h"], ["status", "--help"]] {
            let help = try PlayolaRun(asked)
            XCTAssertEqual(help.status, 0, "\(asked)")
            XCTAssertTrue(help.out.hasPrefix("usage: playola <command> [options]\n"), "\(asked): \(help.out)")
            XCTAssertEqual(help.error, "", "\(asked)")
        }
        XCTAssertFalse(service.wasContacted)
    }

    /// `--json` is for programs: when the service cannot be reached they get a JSON object too, the shape
    /// of the service's own refusals, and exit status 3.
    func testJSONWithoutTheServiceIsAFailureObjectOnStandardOutput() throws {
        let absent = NSTemporaryDirectory() + "playola-absent-\(UUID().uuidString.prefix(8)).sock"
        for command in [["status"], ["play", "porch"], ["volume", "40"]] {
            let outcome = try PlayolaRun(command + ["--json", "--socket", absent])
            XCTAssertEqual(outcome.status, ControlClient.Exit.unreachable, "\(command)")
            XCTAssertEqual(outcome.error, "", "\(command)")
            XCTAssertTrue(outcome.out.hasSuffix("}\n") && outcome.out.filter { $0 == "\n" }.count == 1, "one line: \(outcome.out)")
            let reply = try XCTUnwrap(ControlReply.decode(outcome.out.trimmingCharacters(in: .whitespacesAndNewlines)), outcome.out)
            XCTAssertEqual(reply, .failure("cannot reach the service at \(absent): No such file or directory (is `playola run` running?)"))
        }
        // Without --json the same failure is a sentence on standard error, nothing on standard output.
        let person = try PlayolaRun(["status", "--socket", absent])
        XCTAssertEqual(person.status, ControlClient.Exit.unreachable)
        XCTAssertEqual(person.out, "")
        XCTAssertEqual(person.error, "playola: cannot reach the service at \(absent): No such file or directory (is `playola run` running?)\n")
    }

    /// `play --ago` has a schedule to go back in only on a Playola station: for a stream or a local folder
    /// the service refuses it by the station's name and kind, and plays on as it did.
    func testAgoOnAStreamOrALocalStationIsRefusedNamingTheStationAndItsKind() throws {
        let service = try ServiceTests.Service()
        // Never connected to: the refusal comes before the station would start.
        service.extraSections = "[station jazz]\ntype = stream\nurl = http://127.0.0.1:9/jazz.mp3\n"
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        func run(_ words: String...) throws -> PlayolaRun {
            try PlayolaRun(words + service.configArguments, environment: service.fullEnvironment)
        }
        XCTAssertEqual(try run("status").status, 0)

        let stream = try run("play", "jazz", "--ago", "1h")
        XCTAssertEqual(stream.status, ControlClient.Exit.refused)
        XCTAssertEqual(stream.out, "")
        XCTAssertEqual(stream.error, "playola: --ago needs a Playola station: 'jazz' is an internet stream\n")
        let local = try run("play", "--ago", "15m")
        XCTAssertEqual(local.status, ControlClient.Exit.refused)
        XCTAssertEqual(local.error, "playola: --ago needs a Playola station: 'low' is a local folder\n")
        let json = try run("play", "high", "--ago", "2h", "--json")
        XCTAssertEqual(json.status, ControlClient.Exit.refused)
        XCTAssertEqual(ControlReply.decode(json.out.trimmingCharacters(in: .whitespacesAndNewlines)),
                       .failure("--ago needs a Playola station: 'high' is a local folder"))

        // Nothing changed: the first station still plays.
        let status = try service.status()
        XCTAssertEqual(status["station"] as? String, "low")
        XCTAssertEqual(status["stationType"] as? String, "local")
    }
}
