import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 26: a stream that changes its ICY title as fast as it can, with titles of a kilobyte, costs the
/// running service a bounded share of a core and a few log lines a minute; titles are cut to their limit.
/// It used to cost a log line per change.
final class StreamFloodServiceTests: XCTestCase {
    func testATitleFloodCostsBoundedCPUAndLogLines() throws {
        let service = try ServiceTests.Service()
        service.logPath = service.folder + "/service.log"
        let mp3 = service.folder + "/radio.mp3"
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*700*t)|0.5*sin(2*PI*700*t):s=44100:d=40",
                               "-c:a", "libmp3lame", "-b:a", "128k", mp3])
        // A metadata block every 16 audio bytes (1000 a second), its title another one almost every time: two
        // short, one of 1000 characters.
        let long = "Long Artist - " + String(repeating: "very ", count: 200) + "long"
        let server = try StreamServerProcess(["--mount", "/radio.mp3=\(mp3):audio/mpeg:16000", "--metaint", "16",
                                              "--titles", "Flood One - Song A|Flood Two - Song B|\(long)", "--title-seconds", "0.0005"])
        service.extraSections = "[station flood]\ntype = stream\nurl = http://127.0.0.1:\(server.port)/radio.mp3\n"
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        try service.client("play", "flood")
        try waitUntil("the stream plays", timeout: 10) { service.amplitude(700) > 0.05 }
        let linesBefore = Self.nowPlayingLines(service).count
        let cpuBefore = try Self.cpuSeconds(of: try XCTUnwrap(service.process?.processIdentifier))
        let seconds = 10.0
        Thread.sleep(forTimeInterval: seconds)
        let cpu = (try Self.cpuSeconds(of: try XCTUnwrap(service.process?.processIdentifier)) - cpuBefore) / seconds
        let lines = Self.nowPlayingLines(service)
        let perSecond = Double(lines.count - linesBefore) / seconds
        let blocks = (try streamServerRequest(server.port, "/_requests") as? [[String: Any]])?.last?["meta_blocks"] as? Int ?? 0
        print("title flood: \(blocks) metadata blocks sent; service \(Int(cpu * 100)) % of a core, \(perSecond) now-playing lines a second, longest \(lines.map(\.count).max() ?? 0) characters")
        XCTAssertGreaterThan(blocks, 5000, "the server flooded")
        // Measured: 11-13 % here (most of it the stream's decoding and mixing), 24 % before titles were coalesced.
        XCTAssertLessThan(cpu, 0.2, "CPU of the service while flooded")
        XCTAssertLessThanOrEqual(perSecond, 0.5, "now-playing lines a second: \(lines.suffix(5))")
        XCTAssertTrue(lines.allSatisfy { $0.count < 300 }, "titles cut to their limit: \(lines.map(\.count))")
        XCTAssertGreaterThan(service.amplitude(700), 0.05, "still playing")
        let status = try service.status()
        XCTAssertEqual(status["state"] as? String, "playing")
        let title = try XCTUnwrap((status["stream"] as? [String: Any])?["title"] as? String)
        XCTAssertTrue(title.hasPrefix("Flood") || title.hasPrefix("Long Artist - very very"), title)
        XCTAssertLessThanOrEqual(title.count, 200, "the title's limit")
    }

    static func nowPlayingLines(_ service: ServiceTests.Service) -> [Substring] {
        let log = (try? String(contentsOfFile: service.logPath, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.contains("now playing") }
    }

    /// utime + stime of a process, from /proc/PID/stat (clock ticks of 1/100 s).
    static func cpuSeconds(of pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command name, which is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: try XCTUnwrap(stat.lastIndex(of: ")")))...].split(separator: " ")
        return (Double(fields[11]) ?? 0) / 100 + (Double(fields[12]) ?? 0) / 100
    }
}

/// `Tests/Support/stream_server.py` with `arguments`, on 127.0.0.1, for as long as this object lives.
final class StreamServerProcess {
    let port: Int
    private let process = Process()
    private let lifeline = Pipe()

    init(_ arguments: [String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/stream_server.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--port", "0", "--exit-on-stdin-eof"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = lifeline
        try process.run()
        let ready = try JSONSerialization.jsonObject(with: output.fileHandleForReading.readAvailable() ?? Data()) as? [String: Any]
        port = try XCTUnwrap(ready?["port"] as? Int)
    }

    deinit {
        process.terminate()
        try? lifeline.fileHandleForWriting.close()
    }
}

/// A control request to the stream server (`/_requests`): its JSON answer.
private func streamServerRequest(_ port: Int, _ path: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(string: "http://127.0.0.1:\(port)\(path)")!))
}
