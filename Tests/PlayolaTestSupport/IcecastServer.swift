import Foundation
import XCTest

/// A real icecast2 on 127.0.0.1 fed by ffmpeg source clients (`Tests/Support/icecast_harness.py`).
package final class IcecastServer {
    let port: Int
    let titles: [String]
    private let server: SupportServer

    /// `ogg` adds /tone.ogg (Vorbis, 700 Hz) and /tone.opus (Opus, 1000 Hz), whose titles are chain links.
    package init(mp3: String, aac: String, titles: [String], titleSeconds: Double, ogg: Bool = false) throws {
        server = try SupportServer("icecast_harness.py", ["--mp3", mp3, "--aac", aac, "--titles", titles.joined(separator: "|"),
                                                          "--title-seconds", "\(titleSeconds)"] + (ogg ? ["--ogg"] : []))
        guard let port = server.jsonPort else {
            throw NSError(domain: "IcecastServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "icecast harness did not start"])
        }
        self.port = port
        self.titles = titles
    }

    deinit { server.stop(wait: true) } // icecast and its sources leave with the harness

    package func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }
}
