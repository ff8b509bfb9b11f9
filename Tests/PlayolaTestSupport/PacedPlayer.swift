import Foundation
import PlayolaEngine
import Synchronization
import XCTest

/// The whole player (`PlayerStack`) on a `PacedSink`, following the fake API with the tests' short retries
/// and download backoff; its states and notices collected. Shut down when the test that made it ends.
package final class PacedPlayer: @unchecked Sendable {
    // @unchecked Sendable: `server` is used by the test's own task only; the rest is Sendable.
    package let server: FakePlayola
    package let parts: PlayerStack
    let sink = PacedSink()
    package let states = Mutex<[PlayerState]>([])
    package let notices = Mutex<[String]>([])
    package var player: StationPlayer { parts.player }

    /// `api`: where the player asks for schedules, when not `server` (one that cannot be reached).
    package init(server: FakePlayola, api: String? = nil, cacheBudget: Int64, cacheFolder: String, for test: XCTestCase) throws {
        self.server = server
        let cache = try AudioCache(directory: Fixtures.temporaryDirectory(cacheFolder), budgetBytes: cacheBudget)
        parts = PlayerStack(api: api ?? server.base, cache: cache, output: .sink(sink), retryDelays: [0.05, 0.1, 0.2],
                            downloader: { AudioDownloader(http: $0, cache: $1, backoff: (0.1, 1)) })
        parts.engine.start()
        let parts = parts
        test.addTeardownBlock { await parts.shutdown() } // the player's loop would otherwise tick on for the rest of the test process
        Task { [self] in
            // The one consumer of the player's events (an AsyncStream has one).
            for await event in parts.player.events {
                switch event {
                case .state(let state): self.states.withLock { $0.append(state) }
                case .notice(let text): self.notices.withLock { $0.append(text) }
                case .network: break
                }
            }
        }
    }

    /// How loud `frequency` is in what was played `secondsAgo`.
    package func amplitude(_ frequency: Double, secondsAgo: Double) -> Double {
        let samples = sink.left
        return SignalAnalysis(samples: samples, rate: 48000).amplitude(of: frequency, around: samples.count - Int(secondsAgo * 48000))
    }

    /// The player's state `seconds` after it is told to play `station`.
    package func state(afterPlaying station: String, for seconds: Double) async throws -> PlayerState {
        await player.play(stationID: station)
        try await Task.sleep(for: .seconds(seconds))
        return await player.state
    }
}
