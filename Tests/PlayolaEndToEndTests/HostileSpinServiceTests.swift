import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 12, "must be shown" 3: the whole service against the fake Playola API on loopback, one spin's
/// file a crafted M4A of the kind that used to trap the decoder (an `mdhd` timescale of 0). The service
/// plays the spins around it, stays the same process throughout, names the bad spin once in its log, and
/// starts again on the same cache without falling over the file it left there.
final class HostileSpinServiceTests: XCTestCase {
    func testABadFileForOneSpinIsSilenceAndTheServiceNeverFallsOver() throws {
        let service = try ServiceTests.Service()
        service.logPath = service.folder + "/service.log"
        let api = try FakeAPI(root: service.folder + "/api")
        defer { api.stop() }

        try api.addTone(600, seconds: 9, as: "before.m4a")
        try api.addTone(900, seconds: 12, as: "after.m4a")
        try api.addTone(750, seconds: 5, as: "bad.m4a")
        try zeroMediaTimescale(api.files + "/bad.m4a")
        // Airtimes around now, fixed after the files are made (ffmpeg takes its time on a loaded machine).
        let now = Date()
        try api.schedule("hostile", [("before", -3, 9), ("bad", 6, 5), ("after", 11, 12)], around: now)

        service.extraSections = api.configSections(station: "hostile")
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        let process = try XCTUnwrap(service.process)
        let pid = process.processIdentifier
        try service.client("play", "hostile")

        let start = Date()
        func at(_ seconds: Double) { usleep(UInt32(max(0, seconds - Date().timeIntervalSince(now)) * 1_000_000)) }
        at(3)
        XCTAssertGreaterThan(service.amplitude(600), 0.05, "the spin before the bad one plays")
        at(8.5) // inside the bad spin's window (6–11 s), the spin before has ended
        XCTAssertLessThan(service.amplitude(600) + service.amplitude(750) + service.amplitude(900), 0.005, "silence for the bad spin")
        XCTAssertTrue(process.isRunning, "the service is still running inside the bad spin's window")
        at(13.5)
        XCTAssertGreaterThan(service.amplitude(900), 0.05, "the spin after the bad one plays")
        XCTAssertTrue(process.isRunning && process.processIdentifier == pid, "one process throughout: never restarted")
        let status = try service.status()
        XCTAssertEqual(status["state"] as? String, "playing", "\(status)")
        print("hostile spin: the service played through it in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")

        let log = try String(contentsOfFile: service.logPath, encoding: .utf8)
        let named = log.split(separator: "\n").filter { $0.contains("/files/bad.m4a") }
        XCTAssertEqual(named.count, 1, "the bad spin is named once:\n\(log)")
        XCTAssertEqual(try api.requests(containing: "/files/bad.m4a"), 1, "fetched once, then backed off")

        // A restart on the same cache and state: no crash at start, and the next spin still plays.
        service.stopProcess()
        XCTAssertEqual(process.terminationReason, .exit, "stopped by SIGTERM, not by a trap")
        print("hostile spin: named as: \(named.first ?? "")")
        service.logPath = service.folder + "/service-restarted.log"
        let captured = service.captureSeconds
        try service.start()
        // The capture file is appended to: what counts is what the restarted service wrote.
        try waitUntil("the restarted service plays the spin after", timeout: 10) {
            service.captureSeconds > captured + 1 && service.amplitude(900) > 0.05
        }
        XCTAssertTrue(service.process?.isRunning ?? false)
    }

    /// Sets the `mdhd` box's timescale (version 0: after size, type, version+flags, creation, modification)
    /// to 0: the division by it trapped the decoder before issue 12.
    func zeroMediaTimescale(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = Array("mdhd".utf8)
        let at = try XCTUnwrap((0..<bytes.count - 24).first { Array(bytes[$0..<$0 + 4]) == tag }, "no mdhd in \(path)")
        XCTAssertEqual(bytes[at + 4], 0, "mdhd version 0")
        for index in at + 16..<at + 20 { bytes[index] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// `Tests/Support/fake_playola.py` on 127.0.0.1, serving the station JSON and files under `root`.
final class FakeAPI {
    let root: String
    var files: String { root + "/files" }
    let base: String
    private let server = Process()
    private let lifeline = Pipe()

    init(root: String) throws {
        self.root = root
        for folder in ["stations", "files"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/fake_playola.py").path
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", script, "--root", root, "--port", "0"]
        let output = Pipe()
        server.standardOutput = output
        server.standardInput = lifeline
        try server.run()
        let line = String(decoding: output.fileHandleForReading.readAvailable() ?? Data(), as: UTF8.self)
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            server.terminate()
            throw NSError(domain: "FakeAPI", code: 1, userInfo: [NSLocalizedDescriptionKey: "fake API said '\(line)'"])
        }
        base = "http://127.0.0.1:\(port)"
    }

    func addTone(_ frequency: Int, seconds: Int, as name: String) throws {
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                               "aevalsrc=0.5*sin(2*PI*\(frequency)*t)|0.5*sin(2*PI*\(frequency)*t):s=44100:d=\(seconds)",
                               "-c:a", "aac", "-b:a", "128k", files + "/" + name])
    }

    /// The station's schedule: a spin per entry, airing `from` seconds after `now` for `seconds`, playing
    /// `files/ID.m4a`.
    func schedule(_ station: String, _ spins: [(id: String, from: Double, seconds: Double)], around now: Date) throws {
        // Typed step by step: Swift 6.0.3's type checker gives up on the whole expression at once.
        let spins: [Spin] = spins.map { id, from, seconds -> Spin in
            let block = AudioBlock(id: "b-" + id, title: id, artist: "Test", durationMS: Int(seconds * 1000),
                                   endOfMessageMS: Int(seconds * 1000), downloadURL: base + "/files/\(id).m4a")
            return Spin(id: id, stationID: station, airtime: now.addingTimeInterval(from), startingVolume: 1, fades: [], audioBlock: block)
        }
        try JSONEncoder().encode(spins).write(to: URL(fileURLWithPath: root + "/stations/\(station).json"))
    }

    /// The INI sections that make `station` a Playola station of this API.
    func configSections(station: String) -> String {
        """
        [playola]
        api = \(base)

        [station \(station)]
        type = playola
        id = \(station)
        """
    }

    /// How many requests the server logged whose path contains `fragment`.
    func requests(containing fragment: String) throws -> Int {
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(string: base + "/_requests")!)) as? [[String: Any]]
        return (log ?? []).filter { ($0["path"] as? String)?.contains(fragment) ?? false }.count
    }

    func stop() {
        server.terminate()
        server.waitUntilExit()
    }
}
