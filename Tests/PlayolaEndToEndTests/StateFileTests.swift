import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 13: a state file damaged the way a cut or a bad card leaves it is set aside with a warning naming
/// it and what was wrong, and the configured station plays.
final class DamagedStateTests: XCTestCase {
    func testADamagedStateFileIsSetAsideAndTheConfiguredStationPlays() throws {
        // Each would name the other station ("high") if it were read as a state.
        let damages: [(name: String, bytes: [UInt8], reason: String)] = [
            ("garbage", Array("\u{1}\u{7f}garbage, not JSON\n".utf8), "is not a state record"),
            ("empty", [], "it is empty"),
            ("truncated", Array(#"{"station":"high","playi"#.utf8), "invalid or truncated JSON"),
            ("zeros", [UInt8](repeating: 0, count: 4096), "only zero bytes (4096)"),
            ("volume", Array(#"{"station":"high","playing":true,"volume":1000000000000}"#.utf8), "its volume 1000000000000 is not a percentage"),
        ]
        for damage in damages {
            let service = try ServiceTests.Service()
            let stateDir = service.folder + "/state"
            let statePath = stateDir + "/state.json"
            try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: statePath, contents: Data(damage.bytes))
            if damage.name == "garbage" {
                _ = FileManager.default.createFile(atPath: stateDir + "/device-id", contents: Data("not-a-uuid\n".utf8))
            }
            service.logPath = service.folder + "/service.log"
            try service.start()
            defer { service.stopProcess() }
            try waitUntil("\(damage.name): the configured station plays") { service.amplitude(400) > 0.05 && service.amplitude(1000) < 0.005 }
            XCTAssertEqual(try service.status()["station"] as? String, "low", damage.name)
            XCTAssertTrue(service.process?.isRunning ?? false, damage.name)

            let said = try String(contentsOfFile: service.logPath, encoding: .utf8)
            let warning = said.split(separator: "\n").first { $0.contains("\(statePath) is damaged") }.map(String.init) ?? ""
            XCTAssertTrue(warning.hasPrefix("<4>"), "\(damage.name): a warning: \(said)")
            XCTAssertTrue(warning.contains(damage.reason), "\(damage.name): says what was wrong: \(warning)")
            XCTAssertTrue(warning.contains("set aside as \(statePath).damaged, playing the configured station"), warning)
            XCTAssertEqual(FileManager.default.contents(atPath: statePath + ".damaged"), Data(damage.bytes), "\(damage.name): kept as it was")
            // The new state replaces it: the configured station, readable.
            XCTAssertEqual(StateWriteKillTests.station(in: statePath), "low", damage.name)
            print("damaged state (\(damage.name)): \(warning)")

            if damage.name == "garbage" {
                XCTAssertTrue(said.contains("\(stateDir)/device-id is damaged: it holds no UUID; set aside as \(stateDir)/device-id.damaged, making a new device id"), said)
                let id = try String(contentsOfFile: stateDir + "/device-id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                XCTAssertNotNil(UUID(uuidString: id), id)
            }
        }
    }
}

/// A state directory that cannot be written (here: its parent is a file): each failed write is reported
/// once, with the path and errno's text, and the service plays on.
final class UnwritableStateTests: XCTestCase {
    func testAStateThatCannotBeWrittenIsReportedOnceAndPlayContinues() throws {
        let service = try ServiceTests.Service()
        let blocker = service.folder + "/not-a-directory"
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("a file\n".utf8))
        let good = try String(contentsOfFile: service.config, encoding: .utf8)
        try good.replacingOccurrences(of: "state_dir = \(service.folder)/state", with: "state_dir = \(blocker)/state")
            .write(toFile: service.config, atomically: true, encoding: .utf8)
        service.logPath = service.folder + "/service.log"
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the configured station plays") { service.amplitude(400) > 0.05 }
        for _ in 0..<3 { try service.client("next") }
        try waitUntil("the other station plays after three changes") { service.amplitude(1000) > 0.05 && service.amplitude(400) < 0.005 }
        XCTAssertTrue(service.process?.isRunning ?? false)
        let said = try String(contentsOfFile: service.logPath, encoding: .utf8).split(separator: "\n")
        let failures = said.filter { $0.contains("the state is not saved") }
        XCTAssertEqual(failures, ["<4>the state is not saved: cannot write \(blocker)/state/state.json (creating a temporary file beside it): Not a directory"],
                       said.joined(separator: "\n"))
        XCTAssertTrue(said.contains { $0.contains("the device id is not saved") && $0.contains("\(blocker)/state/device-id") && $0.hasSuffix("Not a directory") },
                      said.joined(separator: "\n"))
        XCTAssertFalse(said.contains { $0.contains("damaged") })
        print("unwritable state: \(failures.count) report for 4 failed writes: \(failures.first ?? "")")
    }
}

/// Steady playing writes nothing: not the state, not the device id, not the last good configuration, and
/// neither does a restart with nothing changed (each write is a rename, so an unchanged inode means no write).
final class SteadyPlayWritesNothingTests: XCTestCase {
    func testSteadyPlayAndARestartWriteNothing() throws {
        let service = try ServiceTests.Service()
        try service.start()
        try waitUntil("playing") { service.amplitude(400) > 0.05 }
        let files = [service.folder + "/state/state.json", service.folder + "/state/device-id", service.lastGood]
        func identities() throws -> [String] {
            try files.map { path in
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                return "\(path) inode \(attributes[.systemFileNumber] ?? "?") modified \(attributes[.modificationDate] ?? "?")"
            } + [try FileManager.default.contentsOfDirectory(atPath: service.folder + "/state").sorted().joined(separator: ",")]
        }
        let before = try identities()
        usleep(3_000_000)
        XCTAssertEqual(try identities(), before, "3 s of playing")
        service.stopProcess()
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("playing again") { service.amplitude(400) > 0.05 }
        usleep(1_000_000)
        XCTAssertEqual(try identities(), before, "a stop and a start with nothing changed")
    }
}
