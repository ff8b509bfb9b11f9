import Foundation
import XCTest

/// A real icecast2 on 127.0.0.1 fed by ffmpeg source clients (`Tests/Support/icecast_harness.py`).
final class IcecastServer {
    let port: Int
    let titles: [String]
    private let process: Process
    private let lifeline = Pipe()

    init(mp3: String, aac: String, titles: [String], titleSeconds: Double) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Support/icecast_harness.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--mp3", mp3, "--aac", aac, "--titles", titles.joined(separator: "|"),
                             "--title-seconds", "\(titleSeconds)", "--exit-on-stdin-eof"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = lifeline
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        guard let ready = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let port = ready["port"] as? Int else {
            process.terminate()
            throw NSError(domain: "IcecastServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "icecast harness did not start"])
        }
        self.port = port
        self.titles = titles
    }

    deinit {
        process.terminate()
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }
}
