import PlayolaSupport
import Synchronization

/// The compressed bytes of one stream connection on their way from the network thread to the decode
/// thread: a bounded FIFO, so a consumer that stops (a lost device) can never make it grow without end.
///
/// When it is full the oldest bytes go: the decoder resynchronises on the next frame, and what plays stays
/// close to live. It also keeps what a stall check needs: when bytes last arrived, and whether the
/// connection has ended.
public final class StreamBuffer: Sendable {
    public let capacity: Int
    private let state: Mutex<State>

    struct State {
        var bytes: [UInt8] = []
        var head = 0
        var ended = false
        var dropped: Int64 = 0
        var lastArrival = monotonicSeconds()
    }

    public init(capacity: Int = 1 << 20) {
        self.capacity = capacity
        state = Mutex(State())
    }

    /// Network side: appends `data`, dropping the oldest bytes beyond the capacity.
    public func append(_ data: UnsafeRawBufferPointer) {
        state.withLock { state in
            if state.head > 0 && state.head >= state.bytes.count / 2 {
                state.bytes.removeFirst(state.head)
                state.head = 0
            }
            state.bytes.append(contentsOf: data)
            state.lastArrival = monotonicSeconds()
            let excess = state.bytes.count - state.head - capacity
            if excess > 0 {
                state.head += excess
                state.dropped += Int64(excess)
            }
        }
    }

    /// Network side: the source is alive though no byte came (an HLS follower between segments), so the
    /// stall watch, which goes by `lastArrival`, waits.
    public func noteAlive() { state.withLock { $0.lastArrival = monotonicSeconds() } }

    /// Network side: free room, for a source that can wait rather than lose its oldest bytes (HLS).
    public var room: Int { state.withLock { capacity - ($0.bytes.count - $0.head) } }

    /// Network side: the connection is over; the decoder plays out what is here, then ends.
    public func finish() { state.withLock { $0.ended = true } }

    /// Decode side: moves up to `maxCount` bytes into `destination`; returns how many.
    public func read(into destination: UnsafeMutableRawBufferPointer) -> Int {
        state.withLock { state in
            let count = min(destination.count, state.bytes.count - state.head)
            guard count > 0 else { return 0 }
            state.bytes.withUnsafeBytes { source in
                destination.baseAddress!.copyMemory(from: source.baseAddress! + state.head, byteCount: count)
            }
            state.head += count
            return count
        }
    }

    /// The first `count` bytes without consuming them (format sniffing).
    public func peek(_ count: Int) -> [UInt8] {
        state.withLock { Array($0.bytes[$0.head..<min($0.bytes.count, $0.head + count)]) }
    }

    public var available: Int { state.withLock { $0.bytes.count - $0.head } }
    /// True once the connection ended and every byte has been read.
    public var isDrained: Bool { state.withLock { $0.ended && $0.head == $0.bytes.count } }
    public var hasEnded: Bool { state.withLock { $0.ended } }
    public var bytesDropped: Int64 { state.withLock { $0.dropped } }
    /// Monotonic seconds of the last arrival (the connection's start before any).
    public var lastArrival: Double { state.withLock { $0.lastArrival } }
}
