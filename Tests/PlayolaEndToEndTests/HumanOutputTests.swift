import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
@testable import PlayolaGPIO

/// Issue 17, "must be shown" 1: what `playola status` and the commands print for people in each state,
/// that `--json` is the service's own answer with today's fields, and the exit statuses — against the real
/// service (`playola run` playing into alsa-lib's file plugin, as in ServiceTests).
final class HumanOutputTests: XCTestCase {
    /// The top-level fields `status --json` has always had (optional ones are left out when empty).
    static let alwaysThere: Set<String> = ["ok", "state", "station", "device", "deviceAvailable", "volume", "uptime", "config", "cache"]
    static let known = alwaysThere.union(["lastError", "spin", "next", "reason", "progress", "stream"])
        // Added for issue 17's device, network and error-time lines (documented in doc/operating.md).
        .union(["stationType", "deviceRate", "deviceFormat", "network", "lastErrorAt"])
        // Issue 16's tone controls (documented in playola(1)).
        .union(["bass", "treble"])
        // Issue 29's queue for MPD's playlist and the spin's id and file (documented in doc/operating.md).
        .union(["upcoming"])
        // Issue 32's device id, version and slot, and the fleet's link (documented in doc/operating.md).
        .union(["deviceId", "version", "slot", "fleet"])

    func run(_ service: ServiceTests.Service, _ words: String...) throws -> PlayolaRun {
        try PlayolaRun(words + service.configArguments, environment: service.fullEnvironment)
    }

    /// `Label:` then the value, every value starting in the same column.
    func fields(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String: String] {
        var columns = Set<Int>()
        var result: [String: String] = [:]
        for row in text.split(separator: "\n").map(String.init) {
            // A continuation row (the config's error under its line) has no label, only the indent.
            let colon = row.hasPrefix(" ") ? nil : row.firstIndex(of: ":")
            let afterLabel = colon.map { row.index(after: $0) } ?? row.startIndex
            let value = row[afterLabel...].drop { $0 == " " }
            columns.insert(row.distance(from: row.startIndex, to: value.startIndex))
            if let colon { result[String(row[..<colon])] = String(value) }
        }
        XCTAssertEqual(columns.count, 1, "the values are aligned:\n\(text)", file: file, line: line)
        return result
    }

    func testStatusAndTheCommandsSpeakToPeopleAndJSONStaysTheServicesAnswer() throws {
        let service = try ServiceTests.Service()
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("playing") { (try? service.status()["state"] as? String) == "playing" }

        let status = try run(service, "status")
        XCTAssertEqual(status.status, 0, status.error)
        XCTAssertEqual(status.error, "")
        let shown = fields(status.out)
        XCTAssertEqual(shown["State"], "playing")
        XCTAssertEqual(shown["Station"], "low (local folder)")
        XCTAssertTrue(shown["Playing"]?.hasPrefix("low  ") ?? false, status.out)
        XCTAssertTrue(shown["Playing"]?.hasSuffix(" / 1:30") ?? false, "the 90 s tone's length: \(status.out)")
        XCTAssertEqual(shown["Device"], "playola_test (open, 48000 Hz, s16)", "the rate and format negotiated: the card's own, asked of its plug first")
        XCTAssertNil(shown["Network"], "a local folder has no server")
        XCTAssertEqual(shown["Volume"], "80%")
        XCTAssertTrue(shown["Cache"]?.hasSuffix("of 16.0 MiB (0 files)") ?? false, status.out)
        XCTAssertEqual(shown["Config"], service.config)
        XCTAssertNil(shown["Last error"])

        let json = try run(service, "status", "--json")
        XCTAssertEqual(json.status, 0)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], json.out)
        let keys = Set(object.keys)
        XCTAssertTrue(Self.alwaysThere.isSubset(of: keys), "\(keys)")
        XCTAssertTrue(keys.isSubset(of: Self.known), "\(keys)")
        XCTAssertEqual(Set(((object["config"] as? [String: Any]) ?? [:]).keys), ["file", "lastGood", "usingLastGood"])
        let spin = try XCTUnwrap(object["spin"] as? [String: Any])
        XCTAssertEqual(Set(spin.keys), ["title", "artist", "airtime", "position", "length", "id", "file"])
        XCTAssertEqual(spin["length"] as? Double, 90)
        XCTAssertEqual(object["stationType"] as? String, "local")
        XCTAssertEqual(object["deviceRate"] as? Int, 48000)
        XCTAssertEqual(object["deviceFormat"] as? String, "s16")

        let next = try run(service, "next")
        XCTAssertEqual(next.status, 0, next.error)
        XCTAssertEqual(next.out, "Now playing: high — \"high\"\n")
        XCTAssertEqual(try run(service, "pause").out, "Paused: high (interrupted)\n")
        XCTAssertEqual(fields(try run(service, "status").out)["State"], "paused (interrupted)")
        XCTAssertEqual(try run(service, "resume").out, "Now playing: high — \"high\"\n")
        XCTAssertEqual(try run(service, "volume", "55").out, "Volume: 55%\n")
        XCTAssertEqual(try run(service, "previous").out, "Now playing: low — \"low\"\n")
        let stop = try run(service, "stop")
        XCTAssertEqual(stop.out, "Stopped.\n")
        let stopped = fields(try run(service, "status").out)
        XCTAssertEqual(stopped["State"], "stopped")
        XCTAssertNil(stopped["Playing"])
        XCTAssertEqual(try run(service, "play", "--json").out, "{\"ok\":true}\n", "--json: the service's answer as it is")

        // Errors: on standard error, nothing on standard output, and doc/operating.md's exit statuses.
        let unknown = try run(service, "play", "nosuch")
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(unknown.out, "")
        XCTAssertEqual(unknown.error, "playola: no station 'nosuch'; stations are: low, high\n")
        let unknownJSON = try run(service, "play", "nosuch", "--json")
        XCTAssertEqual(unknownJSON.status, 1)
        XCTAssertEqual(ControlReply.decode(unknownJSON.out.trimmingCharacters(in: .whitespacesAndNewlines)),
                       .failure("no station 'nosuch'; stations are: low, high"))
        let loud = try run(service, "volume", "300")
        XCTAssertEqual(loud.status, 1)
        XCTAssertEqual(loud.error, "playola: volume takes a percentage from 0 to 100\n")
        XCTAssertEqual(try PlayolaRun(["status", "--socket"]).status, 2, "--socket without its value")
        XCTAssertEqual(try run(service, "frobnicate").status, 2)
        let absent = try PlayolaRun(["status", "--socket", service.folder + "/nobody.sock"])
        XCTAssertEqual(absent.status, 3)
        XCTAssertEqual(absent.out, "")
        XCTAssertTrue(absent.error.contains("cannot reach the service at \(service.folder)/nobody.sock"), absent.error)
    }

    /// `status --watch`: a line for each change the clients make, in order, each once, until interrupted.
    func testStatusWatchPrintsALineForEachChange() throws {
        let service = try ServiceTests.Service()
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("playing") { (try? service.status()["state"] as? String) == "playing" }
        let watch = Process()
        watch.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
        watch.arguments = ["status", "--watch"] + service.configArguments
        watch.environment = service.fullEnvironment
        let out = Pipe()
        watch.standardOutput = out
        try watch.run()
        usleep(800_000)
        for command in [["next"], ["volume", "40"], ["stop"], ["play", "low"]] {
            XCTAssertEqual(try run(service, command[0], command.count > 1 ? command[1] : "--json").status, 0)
            usleep(1_200_000) // more than the watch's half-second poll
        }
        watch.interrupt()
        watch.waitUntilExit()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map { String($0.drop { $0 != " " }.dropFirst(2)) } // less the HH:MM:SS time
            .filter { !$0.hasPrefix("Loading ") } // a station may show loading for a moment before it plays
        XCTAssertEqual(lines, [
            "Now playing: low — \"low\" · volume 80%",
            "Now playing: high — \"high\" · volume 80%",
            "Now playing: high — \"high\" · volume 40%",
            "Stopped. · volume 40%",
            "Now playing: low — \"low\" · volume 40%",
        ])
    }

    /// The audio device is missing, then a station that cannot play (error).
    func testALostDeviceAndAStationInErrorAreShownAsSuch() throws {
        let service = try ServiceTests.Service()
        try FileManager.default.createDirectory(atPath: service.folder + "/empty", withIntermediateDirectories: true)
        service.extraSections = """
            [station empty]
            type = local
            path = \(service.folder)/empty
            """
        try service.writeConfig(volume: 80)
        let ini = try String(contentsOfFile: service.config, encoding: .utf8)
        try ini.replacingOccurrences(of: "device = playola_test", with: "device = playola_missing")
            .write(toFile: service.config, atomically: true, encoding: .utf8)
        try service.start()
        defer { service.stopProcess() }
        // The device was missing from the start: the station that would play says so (it once stayed in
        // `loading` for as long as the device was away).
        try waitUntil("the missing device is noticed", timeout: 10) { (try? service.status()["state"] as? String) == "paused" }
        let lost = fields(try run(service, "status").out)
        let json = try service.status()
        XCTAssertEqual(json["reason"] as? String, "noDevice", "\(json)")
        XCTAssertEqual(json["deviceAvailable"] as? Bool, false)
        XCTAssertNil(json["deviceRate"], "no device, no rate")
        XCTAssertEqual(lost["State"], "paused (no audio device)")
        XCTAssertEqual(lost["Device"], "playola_missing (not available)")
        XCTAssertTrue(lost["Spin"]?.hasPrefix("low  ") ?? false, "the spin that would sound: \(lost)")
        usleep(1_500_000)
        XCTAssertEqual(try service.status()["state"] as? String, "paused", "it stays paused, not back to loading")

        let play = try run(service, "play", "empty")
        XCTAssertEqual(play.status, 1, "the station cannot play")
        XCTAssertEqual(play.out, "")
        XCTAssertEqual(play.error, "playola: empty: error: station empty (no playable audio in \(service.folder)/empty) has no spins scheduled\n")
        let failed = try run(service, "status")
        XCTAssertEqual(failed.status, 0, "status itself succeeded")
        let shown = fields(failed.out)
        XCTAssertEqual(shown["State"], "error (station empty (no playable audio in \(service.folder)/empty) has no spins scheduled)")
        XCTAssertEqual(shown["Station"], "empty (local folder)")
        XCTAssertNil(shown["Last error"], "said once, in State")
    }

    /// A Playola station's spin from the fake API on loopback; then the API goes away: `status` says the
    /// server cannot be reached, with the failure and its time, and the `[led] network` LED lights (issue 14).
    func testAPlayolaSpinThenAnUnreachableServerLightTheNetworkLED() throws {
        let service = try ServiceTests.Service()
        let api = try FakeAPI(root: service.folder + "/api")
        defer { api.stop() }
        try api.addTone(600, seconds: 6, as: "before.m4a")
        try api.addTone(900, seconds: 60, as: "after.m4a")
        let now = Date()
        try api.schedule("porch", [("before", -2, 6), ("after", 4, 60)], around: now)
        let fifo = service.folder + "/gpio.fifo"
        service.extraSections = api.configSections(station: "porch") + "\n\n" + """
            [gpio]
            chip = fake:\(fifo)

            [led]
            network = GPIO24
            """
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        func networkLED() -> String? {
            let written = (try? String(contentsOfFile: fifo + ".out", encoding: .utf8)) ?? ""
            return written.split(separator: "\n").last { $0.hasPrefix("GPIO24 ") }.map(String.init)
        }
        XCTAssertEqual(try run(service, "play", "porch").status, 0)
        try waitUntil("the Playola spin plays", timeout: 8) { (try? service.status()["state"] as? String) == "playing" }
        let playing = fields(try run(service, "status").out)
        XCTAssertEqual(playing["State"], "playing")
        XCTAssertEqual(playing["Station"], "porch (Playola station)")
        let position = try XCTUnwrap(playing["Playing"])
        XCTAssertTrue(position.hasPrefix("Test – before  0:0") && position.hasSuffix(" / 0:06"), position)
        XCTAssertTrue(playing["Next"]?.hasPrefix("Test – after in 0:0") ?? false, "\(playing)")
        XCTAssertEqual(playing["Network"], "the station's server answers")
        try waitUntil("the network LED is written dark") { networkLED() == "GPIO24 0" }

        api.stop()
        // The next spin's start (4 s in) asks for the schedule again, and finds no server.
        try waitUntil("the server is missed", timeout: 10) {
            ((try? service.status()["network"] as? [String: Any])?["reachable"] as? Bool) == false
        }
        let json = try XCTUnwrap(try service.status()["network"] as? [String: Any])
        let error = try XCTUnwrap(json["lastError"] as? String)
        XCTAssertTrue(error.hasPrefix("schedule fetch failed: cannot connect"), error)
        let at = try XCTUnwrap(PlayolaDate.parse(try XCTUnwrap(json["lastErrorAt"] as? String)))
        XCTAssertEqual(at.timeIntervalSinceNow, 0, accuracy: 10)
        let missed = fields(try run(service, "status").out)
        XCTAssertEqual(missed["State"], "playing", "the spins already here play on")
        let network = try XCTUnwrap(missed["Network"])
        XCTAssertTrue(network.hasPrefix("cannot reach the station's server: \(error) (0:0"), network)
        XCTAssertTrue(network.hasSuffix(" UTC)"), network)
        try waitUntil("the network LED lights") { networkLED() == "GPIO24 1" }
    }
}
