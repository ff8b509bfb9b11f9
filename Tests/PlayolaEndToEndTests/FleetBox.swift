import Foundation
import XCTest
import PlayolaTestSupport

/// One `playola run` for the fleet tests: its own folder, state (a device id written before it starts, so its
/// certificate can be made first), socket and cache; the two local stations every box shares (`low`, `high`);
/// null output (`--output /dev/null`, at real-time pace); `[fleet]` on `broker` with its own certificate, or
/// no `[fleet]` at all.
final class FleetBox {
    let folder: String
    let deviceID: String
    private(set) var process: Process?
    private(set) var startedAt = Date.distantPast
    var config: String { folder + "/playola.ini" }
    var log: String { folder + "/playola.log" }

    /// `stations`: the folder holding `low/` and `high/`. `keepalive`: seconds.
    init(stations: String, broker: FleetBroker?, keepalive: Int = 5, groups: String = "lobby", more: String = "") throws {
        folder = NSTemporaryDirectory() + "playola-box-\(UUID().uuidString.prefix(8))"
        deviceID = UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
        try (deviceID + "\n").write(toFile: folder + "/state/device-id", atomically: true, encoding: .utf8)
        var fleet = ""
        if let broker {
            let (cert, key) = try broker.certificate(name: deviceID)
            fleet = """
            [fleet]
            broker = \(broker.url)
            ca_file = \(broker.caFile)
            cert_file = \(cert)
            key_file = \(key)
            group = \(groups)
            keepalive = \(keepalive)
            \(more)
            """
        }
        let stationSections = "[station low]\ntype = local\npath = \(stations)/low\n\n[station high]\ntype = local\npath = \(stations)/high\n\n"
        try ServiceTests.Service.ini(folder: folder, player: "station = low\nvolume = 50", stations: stationSections + fleet)
            .write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// The two stations' folders under `folder`: one short tone each (a spin changes every 20 s).
    static func makeStations(in folder: String) throws {
        for (name, frequency) in [("low", 400), ("high", 1000)] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
            try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=\(frequency):d=20", "-ac", "2", "-ar", "44100",
                                   "\(folder)/\(name)/\(name).wav"])
        }
    }

    func start() throws {
        let process = Process()
        process.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
        process.arguments = ["run", "--config", config, "--last-good", folder + "/last-good.ini", "--output", "/dev/null"]
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        startedAt = Date()
        try process.run()
        self.process = process
    }

    var pid: Int32 { process?.processIdentifier ?? 0 }

    /// SIGKILL: no clean stop, no offline message of its own.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, waiting for the clean stop.
    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// The process's resident memory now, in kB (VmRSS).
    var residentKB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Whether the process has libmosquitto mapped.
    var mapsMosquitto: Bool {
        // Read to its end: /proc's files say they are empty, and the maps are longer than one read.
        String(decoding: FileHandle(forReadingAtPath: "/proc/\(pid)/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self).contains("libmosquitto")
    }

    /// `playola status` (text, or --json parsed).
    func statusText() throws -> String {
        try PlayolaRun(["status", "--config", config, "--last-good", folder + "/last-good.ini"]).out
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
