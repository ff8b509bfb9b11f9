import PlayolaNetwork
import PlayolaSupport

/// How many bytes of a sounding stream the network thread lets gather in the kernel before it wakes
/// (`HTTPClient.stream`'s `receiveBatch`). Woken at every TCP segment batch, it took ~15 wake-ups a second and
/// about a quarter of playola's CPU on a 128 kbit/s stream (bench/PROFILE.md, issue 31).
extension StreamConnection {
    /// The longest the kernel holds what arrived: well below the 2 s the jitter buffer holds when the stream
    /// starts sounding, and the 8 s of silence that count as a stall.
    package static let receiveBatchSeconds = 0.5
    /// Without `icy-br`, the rate is measured over this long once the stream sounds (the burst a server sends
    /// on connect is over by then).
    package static let rateMeasureSeconds = 2.0
    package static let minBatchBytes = 1 << 10
    package static let maxBatchBytes = 32 << 10

    /// The batch for a stream arriving at `bytesPerSecond`.
    package static func receiveBatchBytes(bytesPerSecond: Double) -> Int {
        min(maxBatchBytes, max(minBatchBytes, Int(bytesPerSecond * receiveBatchSeconds)))
    }

    /// Nil until the stream sounds (its start waits for nothing extra) and for a playlist (a finite body);
    /// then half a second of the announced bitrate, or without one, of the rate measured over the first
    /// `rateMeasureSeconds` of sounding (nil until then).
    package var receiveBatchBytes: Int? { receiveBatchBytes(now: monotonicSeconds()) }

    package func receiveBatchBytes(now: Double) -> Int? {
        guard isSounding.load(ordering: .acquiring) else { return nil }
        return shared.withLock { shared in
            guard shared.playlist == nil, let headers = shared.headers else { return nil }
            if let kilobits = headers.bitrate, kilobits > 0 {
                return Self.receiveBatchBytes(bytesPerSecond: Double(kilobits) * 1000 / 8)
            }
            guard let from = shared.rateFrom else {
                shared.rateFrom = (now, shared.bodyBytes)
                return nil
            }
            let elapsed = now - from.seconds
            guard elapsed >= Self.rateMeasureSeconds else { return nil }
            return Self.receiveBatchBytes(bytesPerSecond: Double(shared.bodyBytes - from.bytes) / elapsed)
        }
    }
}
