import Synchronization

/// A single-producer, single-consumer ring of interleaved stereo Float32 frames.
///
/// The decode side writes, the render side reads; neither locks nor allocates. The counters only grow,
/// so `written - read` is the fill level whatever the wrap.
// @unchecked Sendable: the storage is touched only between the counters' acquire/release pairs, by one
// writer (regions past `written`) and one reader (regions before `written`, from `read`); the two
// regions never overlap because the writer never passes `read + capacity`.
public final class SampleRing: @unchecked Sendable {
    public let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    private let written = Atomic<Int>(0)
    private let read = Atomic<Int>(0)

    public init(capacityFrames: Int) {
        capacity = capacityFrames
        storage = .allocate(capacity: capacityFrames * 2)
        storage.initialize(repeating: 0, count: capacityFrames * 2)
    }

    deinit { storage.deallocate() }

    public var availableToRead: Int { written.load(ordering: .acquiring) - read.load(ordering: .relaxed) }
    public var availableToWrite: Int { capacity - (written.load(ordering: .relaxed) - read.load(ordering: .acquiring)) }

    /// Copies up to `frames` frames in; returns how many fit.
    @discardableResult
    public func write(_ source: UnsafePointer<Float>, frames: Int) -> Int {
        let count = min(frames, availableToWrite)
        let start = written.load(ordering: .relaxed) % capacity
        let first = min(count, capacity - start)
        (storage + start * 2).update(from: source, count: first * 2)
        if count > first { storage.update(from: source + first * 2, count: (count - first) * 2) }
        written.add(count, ordering: .releasing)
        return count
    }

    /// Hands the next `frames` readable frames (at most what is there) to `body` in at most two
    /// contiguous pieces, `(pointer, frames, offset within the request)`, then consumes them.
    @inline(__always)
    public func consume(frames: Int, _ body: (UnsafePointer<Float>, Int, Int) -> Void) -> Int {
        let count = min(frames, availableToRead)
        let start = read.load(ordering: .relaxed) % capacity
        let first = min(count, capacity - start)
        if first > 0 { body(storage + start * 2, first, 0) }
        if count > first { body(storage, count - first, first) }
        read.add(count, ordering: .releasing)
        return count
    }

    /// Drops up to `frames` readable frames (a late voice skips to the present).
    @discardableResult
    public func skip(frames: Int) -> Int {
        let count = min(frames, availableToRead)
        read.add(count, ordering: .releasing)
        return count
    }
}
