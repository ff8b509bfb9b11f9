import PlayolaSupport
import Synchronization

/// What one stream connection may cost besides playing its audio: the CPU its parsing takes (ICY blocks and
/// their titles, HLS playlists, segments and their tags) and the bytes it holds outside the audio buffer (a
/// segment and its init section). A server that makes either run away gets a named error,
/// and the player reconnects with its back-off, rather than a radio stalled behind its own parser.
package final class StreamBudget: Sendable {
    /// Parsing may take this share of one core, over each `window` seconds. A live stream's parsing costs
    /// well under 1 % (a 128 kbit/s stream's ICY blocks, a 2 s segment every 2 s).
    package static let cpuShare = 0.5
    package static let window = 10.0
    /// Bytes held outside the audio buffer at once: a segment with its init section, each at most
    /// `HLSFollower.maxBodyBytes`.
    package static let maxHeldBytes = 24 << 20

    private let name: String
    private let cpuShare: Double
    private let window: Double
    private let state = Mutex<(windowStart: Double, spent: Double, exceeded: String?)>((monotonicSeconds(), 0, nil))

    package init(name: String, cpuShare: Double = StreamBudget.cpuShare, window: Double = StreamBudget.window) {
        self.name = name
        self.cpuShare = cpuShare
        self.window = window
    }

    /// Runs `work`, charging the CPU time it takes on this thread.
    package func measure<T>(_ work: () -> T) -> T {
        let began = threadCPUSeconds()
        defer { charge(since: began) }
        return work()
    }

    /// Charges the CPU time this thread has used since `began` (its `threadCPUSeconds()`): for throwing work,
    /// in a `defer`.
    package func charge(since began: Double) {
        let seconds = threadCPUSeconds() - began
        let now = monotonicSeconds()
        state.withLock { state in
            if now - state.windowStart >= window { (state.windowStart, state.spent) = (now, 0) }
            state.spent += seconds
            let limit = cpuShare * window
            if state.spent > limit, state.exceeded == nil {
                state.exceeded = "\(name): parsing what the server sends took more than \(Self.format(limit)) s of CPU in \(Self.format(window)) s"
            }
        }
    }

    /// Fails the budget for holding `bytes` (more than `maxHeldBytes`) outside the audio buffer.
    package func overHeld(_ bytes: Int) -> String {
        let reason = "\(name): the stream would hold \(bytes >> 20) MB outside its audio buffer (at most \(Self.maxHeldBytes >> 20) MB)"
        state.withLock { if $0.exceeded == nil { $0.exceeded = reason } }
        return reason
    }

    /// Why the budget was exceeded, once it has been.
    package var exceeded: String? { state.withLock { $0.exceeded } }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))" : "\((seconds * 1000).rounded() / 1000)"
    }
}
