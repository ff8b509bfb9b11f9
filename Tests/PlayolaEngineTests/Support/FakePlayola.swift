import Foundation
import FoundationNetworking
import PlayolaEngine
import XCTest

/// The fault-injecting fake Playola API (`Tests/Support/fake_playola.py`) on 127.0.0.1, for one test.
final class FakePlayola {
    let root: String
    let port: Int
    private let process: Process
    /// Closed when this object or the whole test process goes: the server exits with it.
    private let lifeline = Pipe()
    var base: String { "http://127.0.0.1:\(port)" }

    init() throws {
        root = Fixtures.temporaryDirectory("fake-api")
        for folder in ["stations", "files"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Support/fake_playola.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "--root", root, "--port", "0", "--exit-on-stdin-eof"]
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
        guard let text = String(data: line, encoding: .utf8), text.hasPrefix("PORT "),
              let port = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw NSError(domain: "FakePlayola", code: 1, userInfo: [NSLocalizedDescriptionKey: "fake server did not start"])
        }
        self.port = port
    }

    deinit {
        // No waitUntilExit: off the main thread it waits on a run loop that never turns here.
        process.terminate()
        try? lifeline.fileHandleForWriting.close()
    }

    func fileURL(_ name: String) -> String { base + "/files/" + name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)! }

    /// Serves `spins` as the station's schedule, their files copied in from `files` (spin id → path).
    func serve(station: String, spins: [Spin]) throws {
        let data = try JSONEncoder().encode(spins)
        try data.write(to: URL(fileURLWithPath: root + "/stations/\(station).json"))
    }

    func addFile(_ path: String, as name: String) throws {
        let target = root + "/files/" + name
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: path, toPath: target)
    }

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

    func fault(_ rules: [[String: Any]]) throws { _ = try control("POST", "/_faults", rules) }
    func validTokens(_ tokens: [String]) throws { _ = try control("POST", "/_tokens", ["valid": tokens]) }

    /// Every request the server saw (control requests excepted), in order.
    func requests(matching pattern: String = "") throws -> [[String: Any]] {
        let all = (try control("GET", "/_requests") as? [[String: Any]]) ?? []
        return all.filter { pattern.isEmpty || (($0["path"] as? String)?.contains(pattern) ?? false) }
    }
}

extension ToneSchedule {
    /// The schedule with download URLs on the fake server, whose files directory gets the fixtures.
    func served(by server: FakePlayola, station: String) throws -> Schedule {
        var spins: [Spin] = []
        for var spin in schedule.spins {
            let name = "\(spin.id).\(URL(fileURLWithPath: files[spin.id]!).pathExtension)"
            try server.addFile(files[spin.id]!, as: name)
            spin.stationID = station
            spin.audioBlock.downloadURL = server.fileURL(name)
            spins.append(spin)
        }
        try server.serve(station: station, spins: spins)
        return Schedule(spins: spins)
    }
}
