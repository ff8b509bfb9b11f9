import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 13: the INI is read where its owner edits it (the boot partition's, else /etc's; here two files in
/// a temporary folder, through `PLAYOLA_CONFIG_SEARCH`), and a broken edit keeps the last good configuration,
/// with the checker's FILE:LINE in the log and in `playola status`.
final class ConfigSearchServiceTests: XCTestCase {
    /// The service's INI as the "boot" file, and beside it an "/etc" file with its own socket and state.
    func makeService() throws -> (service: ServiceTests.Service, boot: String, etc: String) {
        let service = try ServiceTests.Service()
        let boot = service.config
        let etc = service.folder + "/etc.ini"
        let good = try String(contentsOfFile: boot, encoding: .utf8)
        try good.replacingOccurrences(of: "/control.sock", with: "/etc.sock").replacingOccurrences(of: "/state\n", with: "/state-etc\n")
            .write(toFile: etc, atomically: true, encoding: .utf8)
        service.search = [boot, etc]
        service.logPath = service.folder + "/service.log"
        return (service, boot, etc)
    }

    /// `playola check-config` with no FILE: the file the search finds, and what it says of it.
    func checkConfig(_ service: ServiceTests.Service) throws -> String {
        try PlayolaRun(["check-config"], environment: service.fullEnvironment).out
    }

    func config(_ status: [String: Any]) -> [String: Any] { status["config"] as? [String: Any] ?? [:] }

    func testTheBootINIWinsOverEtcAndEtcServesWithoutOne() throws {
        let (service, boot, etc) = try makeService()
        // The boot file's first station is the other one: which file was read shows in what plays.
        let text = try String(contentsOfFile: boot, encoding: .utf8)
        try text.replacingOccurrences(of: "station = low", with: "station = high").write(toFile: boot, atomically: true, encoding: .utf8)
        try service.start()
        try waitUntil("the boot INI's station plays") { service.amplitude(1000) > 0.05 && service.amplitude(400) < 0.005 }
        // The client finds the service's socket through the same search (no --config): the boot file's.
        let status = try service.status()
        XCTAssertEqual(status["station"] as? String, "high")
        XCTAssertEqual(config(status)["file"] as? String, boot)
        XCTAssertEqual(config(status)["usingLastGood"] as? Bool, false)
        XCTAssertNil(config(status)["error"])
        XCTAssertEqual(try checkConfig(service), "\(boot): OK (2 stations: low, high)\n")
        XCTAssertEqual(FileManager.default.contents(atPath: service.lastGood), FileManager.default.contents(atPath: boot),
                       "the boot INI is kept as the last good one")
        service.stopProcess()

        // No boot INI (the package alone on a read-write system): /etc's, as before.
        try FileManager.default.removeItem(atPath: boot)
        XCTAssertEqual(try checkConfig(service), "\(etc): OK (2 stations: low, high)\n")
        service.socket = service.folder + "/etc.sock"
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the /etc INI's station plays") { service.amplitude(400) > 0.05 && service.amplitude(1000) < 0.005 }
        XCTAssertEqual(config(try service.status())["file"] as? String, etc)
    }

    /// A boot INI that is there but cannot be looked at (on an image, a boot partition the service may not
    /// enter; here a symbolic link to itself) is passed over with a warning that names it, not silently.
    func testAnUnreachableBootINIIsPassedOverWithAWarning() throws {
        let (service, boot, etc) = try makeService()
        try FileManager.default.removeItem(atPath: boot)
        try FileManager.default.createSymbolicLink(atPath: boot, withDestinationPath: boot)
        let run = try PlayolaRun(["check-config"], environment: service.fullEnvironment)
        XCTAssertEqual(run.status, 0)
        let said = run.error
        XCTAssertEqual(said, "\(boot): cannot be looked at (Too many levels of symbolic links); checking \(etc)\n")
    }

    func testABrokenBootINIPlaysTheLastGoodConfigurationAndSaysWhy() throws {
        let (service, boot, _) = try makeService()
        try service.start()
        try waitUntil("the boot INI plays") { service.amplitude(400) > 0.05 }
        service.stopProcess()
        let lastGood = FileManager.default.contents(atPath: service.lastGood)
        XCTAssertEqual(lastGood, FileManager.default.contents(atPath: boot))

        // A broken edit that also names the other station: nothing of it applies.
        let broken = try String(contentsOfFile: boot, encoding: .utf8).replacingOccurrences(of: "volume = 80", with: "volume = loud")
            .replacingOccurrences(of: "station = low", with: "station = high")
        try broken.write(toFile: boot, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: service.folder + "/state/state.json") // so the INI's station would count
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the last good configuration plays") { service.amplitude(400) > 0.05 && service.amplitude(1000) < 0.005 }
        let expected = "\(boot):4: error: volume must be a whole number from 0 to 100, not 'loud'"
        let status = try service.status()
        XCTAssertEqual(config(status)["usingLastGood"] as? Bool, true)
        XCTAssertEqual(config(status)["error"] as? String, expected)
        XCTAssertEqual(config(status)["lastGood"] as? String, service.lastGood)
        let said = try String(contentsOfFile: service.logPath, encoding: .utf8)
        XCTAssertTrue(said.contains("<3>\(expected)\n"), said)
        XCTAssertTrue(said.contains("\(boot) has errors: playing the last good configuration, \(service.lastGood)"), said)
        XCTAssertEqual(FileManager.default.contents(atPath: service.lastGood), lastGood, "a broken file never replaces the last good one")
        // The human line beside the JSON.
        let human = try humanStatus(service)
        XCTAssertTrue(human.contains("has errors, so the service runs on the last good configuration (\(service.lastGood)). The first: \(expected)"), human)
        print("broken boot INI: status config \(config(status)); said: \(human)")
    }

    func testSIGHUPKeepsTheRunningConfigurationOnABrokenEditAndAppliesAFixedOne() throws {
        let (service, boot, _) = try makeService()
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("playing at volume 80") { abs(service.amplitude(400) - 0.5 * 0.2512) < 0.02 }
        let pid = try XCTUnwrap(service.process?.processIdentifier)

        let good = try String(contentsOfFile: boot, encoding: .utf8)
        try good.replacingOccurrences(of: "volume = 80", with: "volume = 50\nrate = 12345").write(toFile: boot, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        try waitUntil("status shows the broken edit") { self.config(try service.status())["error"] != nil }
        let status = try service.status()
        XCTAssertEqual(config(status)["error"] as? String, "\(boot):5: error: rate must be auto, 48000 or 44100, not '12345'")
        XCTAssertEqual(config(status)["usingLastGood"] as? Bool, true)
        usleep(1_000_000)
        // Volume 50 would be 0.016. (Not an exact level: the station's file may be crossfading into itself.)
        XCTAssertEqual(status["volume"] as? Int, 80, "the volume of the broken edit does not apply")
        XCTAssertGreaterThan(service.amplitude(400), 0.06, "the volume of the broken edit does not apply")
        XCTAssertEqual(try service.status()["volume"] as? Int, 80)
        XCTAssertEqual(FileManager.default.contents(atPath: service.lastGood), Data(good.utf8))

        let fixed = good.replacingOccurrences(of: "volume = 80", with: "volume = 50")
        try fixed.write(toFile: boot, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        try waitUntil("the fixed edit applies") { abs(service.amplitude(400) - 0.5 * 0.0316) < 0.004 }
        let after = try service.status()
        XCTAssertNil(config(after)["error"])
        XCTAssertEqual(config(after)["usingLastGood"] as? Bool, false)
        XCTAssertEqual(FileManager.default.contents(atPath: service.lastGood), Data(fixed.utf8), "the fixed file is the last good one now")
        XCTAssertEqual(try humanStatus(service), "", "nothing to say when the INI is good")
    }

    /// What `playola status` says on standard error.
    func humanStatus(_ service: ServiceTests.Service) throws -> String {
        try PlayolaRun(["status"] + service.configArguments, environment: service.fullEnvironment).error
    }
}
