import Foundation
import Synchronization
import XCTest

/// Live HLS made by ffmpeg's HLS muxer, served with faults (`Tests/Support/hls_server.py`). One for all the
/// HLS tests (its variants take 6 s to have the segments a live join needs), stopped after `StreamTests`: its
/// four real-time encoders take about a tenth of a core, which the rest of the suite should not pay.
package final class HLSServer {
    let port: Int
    private let server: SupportServer

    /// Made once by Swift's thread-safe lazy initialisation of statics, then only read: never mutated.
    package nonisolated(unsafe) static let shared: Result<HLSServer, Error> = Result {
        wasStarted.store(true, ordering: .releasing)
        return try HLSServer()
    }
    static let wasStarted = Atomic<Bool>(false)

    /// Stops the shared server if a test started it.
    package static func stopShared() {
        guard wasStarted.load(ordering: .acquiring), case .success(let server) = shared else { return }
        server.server.stop(wait: true)
    }

    private init() throws {
        server = try SupportServer("hls_server.py", [])
        guard let port = server.jsonPort else {
            throw NSError(domain: "HLSServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "hls_server did not start: \(server.readyLine)"])
        }
        self.port = port
    }

    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    package func control(_ path: String, _ body: [String: Any]) throws {
        _ = try controlRequest(url(""), "POST", path, body)
    }

    /// The paths requested of `variant`, in order.
    package func requests(_ variant: String) throws -> [String] {
        try controlRequest(url(""), "GET", "/_requests?variant=\(variant)") as? [String] ?? []
    }
}
