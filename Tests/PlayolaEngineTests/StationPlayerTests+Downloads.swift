import Foundation
@testable import PlayolaEngine
import XCTest

/// A cold start over a slow line: the ten-minute lookahead holds six files, and the spin that must sound
/// first is fetched at a full share of the line, not a sixth of it beside the others.
extension StationPlayerTests {
    func testAColdStartOverASlowLineFetchesTheAudibleSpinFirstAndTwoFilesAtOnce() async throws {
        // Six 20 s spins back to back, the first sounding for 5 s already; all within the lookahead.
        let spins: [(String, Double, Double, Double)] = (0..<6).map { index in
            let step = Double(index)
            return ("s\(index)", 500 + 100 * step, -5 + 20 * step, 20)
        }
        let stack = try await stack(station: "slow", spins: spins)
        let sizes = try spins.map { spin in
            try XCTUnwrap(FileManager.default.attributesOfItem(atPath: stack.server.root + "/files/\(spin.0).mp3")[.size] as? Int)
        }
        // The line carries the six files in about 6 s: the first file alone in about 1 s.
        let bytesPerSecond = sizes.reduce(0, +) / 6
        _ = try stack.server.control("POST", "/_bandwidth", ["bytes_per_second": bytesPerSecond])

        await stack.player.play(stationID: "slow")
        let asked = Date()
        var state = PlayerState.idle
        while Date().timeIntervalSince(asked) < 15 {
            state = await stack.player.state
            if case .playing = state { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let toPlay = Date().timeIntervalSince(asked)
        guard case .playing(.spin(let spin)) = state else { return XCTFail("\(state)") }
        XCTAssertEqual(spin.id, "s0")
        try await Task.sleep(for: .seconds(0.3))
        XCTAssertGreaterThan(stack.amplitude(500, secondsAgo: 0.15), 0.2, "the audible spin sounds")

        // All six fetched in turn, whatever the order the line finishes them in.
        var requests: [[String: Any]] = []
        for _ in 0..<150 {
            requests = try stack.server.requests(matching: "/files/").filter { $0["method"] as? String == "GET" }
            if requests.count == 6, requests.allSatisfy({ $0["end"] != nil }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let names = requests.compactMap { ($0["path"] as? String)?.split(separator: "/").last.map(String.init) }
        XCTAssertTrue(names.prefix(2).contains("s0.mp3"), "the audible spin's file is among the first two asked for: \(names)")
        XCTAssertEqual(Set(names), Set(spins.map { "\($0.0).mp3" }), "every spin in the lookahead is fetched")
        let spans = requests.compactMap { request -> (Double, Double)? in
            guard let start = request["t"] as? Double, let end = request["end"] as? Double else { return nil }
            return (start, end)
        }
        XCTAssertEqual(spans.count, 6)
        let mostAtOnce = spans.map { span in spans.filter { $0.0 <= span.0 && span.0 < $0.1 }.count }.max() ?? 0
        XCTAssertLessThanOrEqual(mostAtOnce, 2, "files on the line at once")
        // Two at once: the first file at half the line, about 2 s; six at once would take about 6 s.
        XCTAssertLessThan(toPlay, 4, "seconds from play to playing over the slow line")
        print("cold start over a slow line: playing \(String(format: "%.2f", toPlay)) s after play; at most \(mostAtOnce) files at once; order \(names)")
    }

    /// A station that plays for months must not keep what it knew of every spin it ever played: files,
    /// failures and requests go when their spin leaves the schedule.
    func testWhatThePlayerKnowsOfASpinGoesWithTheSpin() async throws {
        let spins: [(String, Double, Double, Double)] = (0..<12).map { index in
            ("p\(index)", 500 + 50 * Double(index), -0.5 + Double(index), 1)
        }
        let stack = try await stack(station: "short", spins: spins)
        await stack.player.play(stationID: "short")
        try await Task.sleep(for: .seconds(5))
        // The server moves on: the five spins that have ended are no longer in its schedule.
        let served = try JSONDecoder().decode([Spin].self, from: Data(contentsOf: URL(fileURLWithPath: stack.server.root + "/stations/short.json")))
        try stack.server.serve(station: "short", spins: Array(served.dropFirst(5)))
        try await Task.sleep(for: .seconds(2))
        let (files, requested, left) = await (stack.player.follower.files.count, stack.player.follower.requested.count, stack.player.follower.schedule.spins.count)
        XCTAssertEqual(left, 7, "the spins the server no longer lists, ended, left the schedule")
        XCTAssertGreaterThan(files, 0)
        XCTAssertLessThanOrEqual(files, left, "files of spins no longer in the schedule are forgotten")
        XCTAssertLessThanOrEqual(requested, left, "requests of spins no longer in the schedule are forgotten")
    }
}
