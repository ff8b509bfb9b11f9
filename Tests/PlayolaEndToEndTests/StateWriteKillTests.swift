import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 13, "must be shown" 3: the service is killed with SIGKILL at random moments around a state write
/// (slowed by the `PLAYOLA_TEST_WRITE_PAUSE` seam so that the kills land inside it), and every next start
/// reads the old state or the new one: never neither, never a crash.
final class StateWriteKillTests: XCTestCase {
    /// Each write pauses this long after writing, after fsync and after rename: 0.6 s in all.
    static let pause = 0.2
    static let kills = 30

    func testAKillInTheMiddleOfAStateWriteLeavesTheOldOrTheNewState() throws {
        let service = try ServiceTests.Service()
        service.environment["PLAYOLA_TEST_WRITE_PAUSE"] = String(Self.pause)
        let log = service.folder + "/service.log"
        let stateDir = service.folder + "/state"
        let statePath = stateDir + "/state.json"
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the first start saved its state", timeout: 10) { Self.station(in: statePath) == "low" }

        var station = "low"
        var counts = (old: 0, new: 0, neither: 0, crashed: 0, inTheWrite: 0)
        for round in 1...Self.kills {
            let expectedNext = station == "low" ? "high" : "low"
            // `next` without waiting for its answer, which comes only once the write is done.
            let client = Process()
            client.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
            client.arguments = ["next"] + service.configArguments
            client.environment = service.fullEnvironment
            client.standardOutput = FileHandle.nullDevice
            client.standardError = FileHandle.nullDevice
            try client.run()
            // The client's start (tens of ms), the command, and the three pauses of the write, which has its
            // temporary file for the first two.
            usleep(UInt32(Double.random(in: 0...(3 * Self.pause + 0.1)) * 1_000_000))
            let temporaryFiles = try FileManager.default.contentsOfDirectory(atPath: stateDir).filter { $0.hasPrefix("state.json.tmp.") }
            if !temporaryFiles.isEmpty { counts.inTheWrite += 1 }
            let process = try XCTUnwrap(service.process)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            client.waitUntilExit()

            let onDisk = Self.station(in: statePath)
            service.logPath = log
            try service.start()
            var status: [String: Any] = [:]
            try waitUntil("round \(round): the restarted service answers", timeout: 10) {
                status = (try? service.status()) ?? [:]
                return status["station"] != nil
            }
            let read = status["station"] as? String
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if service.process?.isRunning != true {
                counts.crashed += 1
                XCTFail("round \(round): the service did not keep running after the restart: \(said)")
            } else if read == station && onDisk == station {
                counts.old += 1
            } else if read == expectedNext && onDisk == expectedNext {
                counts.new += 1
            } else {
                counts.neither += 1
                XCTFail("round \(round): before the kill \(station), the kill during a change to \(expectedNext); on disk \(onDisk ?? "nothing"), read \(read ?? "nothing")")
            }
            XCTAssertFalse(said.contains("damaged"), "round \(round): \(said)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: stateDir).filter { $0.contains(".tmp.") }, [],
                           "round \(round): the start removes what a cut-off write left")
            station = read ?? station
        }
        print("state-write kills: \(Self.kills); temporary file present at the kill: \(counts.inTheWrite); "
              + "next start read the old state: \(counts.old), the new state: \(counts.new), neither: \(counts.neither); "
              + "crashes: \(counts.crashed)")
        XCTAssertEqual(counts.old + counts.new, Self.kills)
        // The moments are random: about half land before the rename (expected 17 of 30), and both outcomes must be seen.
        XCTAssertGreaterThan(counts.inTheWrite, Self.kills / 4)
        XCTAssertGreaterThan(counts.old, 0)
        XCTAssertGreaterThan(counts.new, 0)
    }

    /// The station saved in the state file, or nil when it holds none.
    static func station(in path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["station"] as? String
    }
}
