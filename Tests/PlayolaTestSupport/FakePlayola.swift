import Foundation
import FoundationNetworking
import PlayolaEngine
import XCTest

/// The fault-injecting fake Playola API (`Tests/Support/fake_playola.py`) on 127.0.0.1, for one test; over
/// https when given a certificate.
package final class FakePlayola {
    /// A self-signed certificate for 127.0.0.1 made for one test (openssl): the server's, and the one
    /// authority the test's HTTP client trusts (`HTTPClient(certificateAuthorities:)`).
    package struct Certificate {
        package let certificate: String
        let key: String

        package init() throws {
            let folder = Fixtures.temporaryDirectory("tls")
            (certificate, key) = (folder + "/cert.pem", folder + "/key.pem")
            try Fixtures.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                         "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
                                         "-addext", "subjectAltName=IP:127.0.0.1"])
        }
    }

    package let root: String
    let port: Int
    let scheme: String
    private let server: SupportServer
    package var base: String { "\(scheme)://127.0.0.1:\(port)" }

    /// `faults`: rules in force from the start (`fault`'s), for a server over https the test cannot reach itself.
    package init(tls: Certificate? = nil, faults: [[String: Any]] = []) throws {
        root = Fixtures.temporaryDirectory("fake-api")
        for folder in ["stations", "files"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        scheme = tls == nil ? "http" : "https"
        server = try SupportServer("fake_playola.py", ["--root", root, "--port", "0"]
            + (tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? [])
            + (faults.isEmpty ? [] : ["--faults", String(decoding: try JSONSerialization.data(withJSONObject: faults), as: UTF8.self)]))
        guard server.readyLine.hasPrefix("PORT "), let port = Int(server.readyLine.dropFirst(5)) else {
            throw NSError(domain: "FakePlayola", code: 1, userInfo: [NSLocalizedDescriptionKey: "fake server did not start"])
        }
        self.port = port
    }

    package func fileURL(_ name: String) -> String { base + "/files/" + name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)! }

    /// Serves `spins` as the station's schedule, their files copied in from `files` (spin id → path).
    package func serve(station: String, spins: [Spin]) throws {
        let data = try JSONEncoder().encode(spins)
        try data.write(to: URL(fileURLWithPath: root + "/stations/\(station).json"))
    }

    package func addFile(_ path: String, as name: String) throws {
        let target = root + "/files/" + name
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: path, toPath: target)
    }

    package func control(_ method: String, _ path: String, _ body: Any? = nil) throws -> Any? {
        try controlRequest(base, method, path, body)
    }

    package func fault(_ rules: [[String: Any]]) throws { _ = try control("POST", "/_faults", rules) }
    package func validTokens(_ tokens: [String]) throws { _ = try control("POST", "/_tokens", ["valid": tokens]) }

    /// Every request the server saw (control requests excepted), in order.
    package func requests(matching pattern: String = "") throws -> [[String: Any]] {
        let all = (try control("GET", "/_requests") as? [[String: Any]]) ?? []
        return all.filter { pattern.isEmpty || (($0["path"] as? String)?.contains(pattern) ?? false) }
    }
}

extension ToneSchedule {
    /// The schedule with download URLs on the fake server, whose files directory gets the fixtures.
    package func served(by server: FakePlayola, station: String) throws -> Schedule {
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
