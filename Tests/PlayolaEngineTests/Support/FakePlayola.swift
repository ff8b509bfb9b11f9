import Foundation
import FoundationNetworking
import PlayolaEngine
import XCTest

/// The fault-injecting fake Playola API (`Tests/Support/fake_playola.py`) on 127.0.0.1, for one test.
final class FakePlayola {
    let root: String
    let port: Int
    private let server: SupportServer
    var base: String { "http://127.0.0.1:\(port)" }

    init() throws {
        root = Fixtures.temporaryDirectory("fake-api")
        for folder in ["stations", "files"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        server = try SupportServer("fake_playola.py", ["--root", root, "--port", "0"])
        guard server.readyLine.hasPrefix("PORT "), let port = Int(server.readyLine.dropFirst(5)) else {
            throw NSError(domain: "FakePlayola", code: 1, userInfo: [NSLocalizedDescriptionKey: "fake server did not start"])
        }
        self.port = port
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
        try controlRequest(base, method, path, body)
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
