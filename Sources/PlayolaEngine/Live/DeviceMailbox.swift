import Synchronization

/// The render thread's device events on their way to the decode thread, which hands them on (the log, the
/// player): the render thread never calls out, logs or locks for them. One producer, one consumer, a fixed
/// ring allocated once; an event that finds the ring full is dropped and counted (the consumer drains it
/// at every pass, several times a second, and the render thread posts at most one event per attempt).
// @unchecked Sendable: each slot is written only by the producer while it is free (tail - head < capacity)
// and read only by the consumer once published (the tail's releasing store orders the write before it).
final class DeviceMailbox<Element: Sendable>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Element?>
    private let capacity: Int
    /// Next slot to read (the consumer's); next slot to write (the producer's).
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)

    init(capacity: Int = 16) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// The producer (the render thread): no lock, no allocation.
    func post(_ element: Element) {
        let end = tail.load(ordering: .relaxed)
        guard end - head.load(ordering: .acquiring) < capacity else {
            droppedCount.add(1, ordering: .relaxed)
            return
        }
        slots[end % capacity] = element
        tail.store(end + 1, ordering: .releasing)
    }

    /// The consumer: the oldest event not yet taken.
    func take() -> Element? {
        let start = head.load(ordering: .relaxed)
        guard start < tail.load(ordering: .acquiring) else { return nil }
        let element = slots[start % capacity].take()
        head.store(start + 1, ordering: .releasing)
        return element
    }

    /// Events dropped so far because the ring was full.
    var dropped: Int { droppedCount.load(ordering: .relaxed) }
}
