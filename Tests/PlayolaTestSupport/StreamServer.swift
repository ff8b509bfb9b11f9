import Foundation
import FoundationNetworking
import XCTest

/// The fault-injecting internet radio server (`Tests/Support/stream_server.py`) on 127.0.0.1, for one test.
package final class StreamServer {
    package struct Mount {
        package var path: String
        var file: String
        var contentType: String
        /// The file's own byte rate, so that it is served at the pace it plays.
        package var bytesPerSecond: Int { Int(Double((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) / seconds) }
        var seconds: Double

        package init(path: String, file: String, contentType: String, seconds: Double) {
            self.path = path
            self.file = file
            self.contentType = contentType
            self.seconds = seconds
        }
    }

    let mounts: [Mount]
    let titles: [String]
    let titleSeconds: Double
    private(set) var port: Int
    private var server: SupportServer?
    var base: String { "http://127.0.0.1:\(port)" }

    /// `options`: more of the script's flags, e.g. `--icy-status-line`.
    let options: [String]

    package init(mounts: [Mount], titles: [String] = ["Artist One - Song One"], titleSeconds: Double = 3, port: Int = 0, options: [String] = []) throws {
        self.mounts = mounts
        self.options = options
        self.titles = titles
        self.titleSeconds = titleSeconds
        self.port = port
        try start()
    }

    /// Starts the server (again, on the same port after `stop`).
    package func start() throws {
        var arguments = ["--port", "\(port)", "--title-seconds", "\(titleSeconds)", "--titles", titles.joined(separator: "|")] + options
        for mount in mounts { arguments += ["--mount", "\(mount.path)=\(mount.file):\(mount.contentType):\(mount.bytesPerSecond)"] }
        let server = try SupportServer("stream_server.py", arguments)
        guard let port = server.jsonPort else {
            throw NSError(domain: "StreamServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "stream server did not start"])
        }
        self.port = port
        self.server = server
    }

    /// Kills the server: every connection drops and nothing listens on the port.
    package func stop() {
        server?.stop(wait: true)
        server = nil
    }

    package func url(_ path: String) -> String { base + path }

    package func control(_ method: String, _ path: String, _ body: Any? = nil) throws -> Any? {
        try controlRequest(base, method, path, body)
    }

    /// Faults for the next connections, in order (see the script's help for the modes).
    package func fault(_ faults: [[String: Any]]) throws { _ = try control("POST", "/_fault", faults) }

    /// The stream requests the server saw, in order: path, fault, time `t`, `audio_bytes`, `closed`.
    package func requests() throws -> [[String: Any]] { (try control("GET", "/_requests") as? [[String: Any]]) ?? [] }
}
