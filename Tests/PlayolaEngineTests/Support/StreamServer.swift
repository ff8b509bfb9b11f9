import Foundation
import FoundationNetworking
import XCTest

/// The fault-injecting internet radio server (`Tests/Support/stream_server.py`) on 127.0.0.1, for one test.
final class StreamServer {
    struct Mount {
        var path: String
        var file: String
        var contentType: String
        /// The file's own byte rate, so that it is served at the pace it plays.
        var bytesPerSecond: Int { Int(Double((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) / seconds) }
        var seconds: Double
    }

    let mounts: [Mount]
    let titles: [String]
    let titleSeconds: Double
    private(set) var port: Int
    private var process: Process?
    private var lifeline = Pipe()
    var base: String { "http://127.0.0.1:\(port)" }

    /// `options`: more of the script's flags, e.g. `--icy-status-line`.
    let options: [String]

    init(mounts: [Mount], titles: [String] = ["Artist One - Song One"], titleSeconds: Double = 3, port: Int = 0, options: [String] = []) throws {
        self.mounts = mounts
        self.options = options
        self.titles = titles
        self.titleSeconds = titleSeconds
        self.port = port
        try start()
    }

    deinit { stop() }

    /// Starts the server (again, on the same port after `stop`).
    func start() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Support/stream_server.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = ["python3", script, "--port", "\(port)", "--exit-on-stdin-eof", "--title-seconds", "\(titleSeconds)",
                         "--titles", titles.joined(separator: "|")]
        arguments += options
        for mount in mounts { arguments += ["--mount", "\(mount.path)=\(mount.file):\(mount.contentType):\(mount.bytesPerSecond)"] }
        process.arguments = arguments
        let output = Pipe()
        lifeline = Pipe()
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
            throw NSError(domain: "StreamServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "stream server did not start"])
        }
        self.port = port
        self.process = process
    }

    /// Kills the server: every connection drops and nothing listens on the port.
    func stop() {
        process?.terminate()
        try? lifeline.fileHandleForWriting.close()
        process?.waitUntilExit()
        process = nil
    }

    func url(_ path: String) -> String { base + path }

    func control(_ method: String, _ path: String, _ body: Any? = nil) throws -> Any? {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        let semaphore = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Data?
        URLSession.shared.dataTask(with: request) { data, _, _ in
            result = data
            semaphore.signal()
        }.resume()
        semaphore.wait()
        return result.flatMap { try? JSONSerialization.jsonObject(with: $0) }
    }

    /// Faults for the next connections, in order (see the script's help for the modes).
    func fault(_ faults: [[String: Any]]) throws { _ = try control("POST", "/_fault", faults) }

    /// The stream requests the server saw, in order: path, fault, time `t`, `audio_bytes`, `closed`.
    func requests() throws -> [[String: Any]] { (try control("GET", "/_requests") as? [[String: Any]]) ?? [] }
}
