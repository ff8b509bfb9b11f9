import Synchronization

/// The voice in a slot: a spin on the timeline or a stream.
public enum SlotVoice {
    case timeline(TimelineVoice)
    case stream(StreamVoice)
}

/// A fixed table of voices shared by the decode side (which fills and retires slots) and the render
/// thread (which mixes the active ones), with no locks and no allocation on the render side.
///
/// A slot goes empty → active (decode side stores the voice, then publishes) → retiring (decode side
/// asks) → released (render side acknowledges it no longer touches the voice) → empty (decode side
/// drops the voice, so deallocation never happens on the render thread).
// @unchecked Sendable: `voices[i]` is written only by the decode side while the slot is empty or released,
// and read by the render side only while the slot is active or retiring; the state transitions are
// release/acquire atomics, so each access is ordered after the write it needs.
public final class VoiceSlots: @unchecked Sendable {
    public static let empty = 0, active = 1, retiring = 2, released = 3
    public let capacity: Int
    private let states: UnsafeMutablePointer<Atomic<Int>>
    /// Unretained on the render side, so that reading a slot never touches a reference count.
    private let voices: UnsafeMutablePointer<Held?>

    private enum Held {
        case timeline(Unmanaged<TimelineVoice>)
        case stream(Unmanaged<StreamVoice>)

        init(_ voice: SlotVoice) {
            switch voice {
            case .timeline(let voice): self = .timeline(.passRetained(voice))
            case .stream(let voice): self = .stream(.passRetained(voice))
            }
        }

        var unretained: SlotVoice {
            switch self {
            case .timeline(let voice): .timeline(voice.takeUnretainedValue())
            case .stream(let voice): .stream(voice.takeUnretainedValue())
            }
        }

        func release() {
            switch self {
            case .timeline(let voice): voice.release()
            case .stream(let voice): voice.release()
            }
        }
    }

    /// Voices mixed at once, in real time or rendered: each holds a decoder and a ~2 s ring (768 KB at 48 kHz), so
    /// this bounds the memory a schedule of overlapping spins can take.
    public static let defaultCapacity = 16

    public init(capacity: Int = defaultCapacity) {
        self.capacity = capacity
        states = .allocate(capacity: capacity)
        for index in 0..<capacity { (states + index).initialize(to: Atomic(Self.empty)) }
        voices = .allocate(capacity: capacity)
        voices.initialize(repeating: nil, count: capacity)
    }

    deinit {
        for index in 0..<capacity { voices[index]?.release() }
        states.deinitialize(count: capacity)
        states.deallocate()
        voices.deallocate()
    }

    public func state(_ index: Int) -> Int { states[index].load(ordering: .acquiring) }

    // MARK: decode side

    /// Publishes `voice` in a free slot; false when the table is full.
    @discardableResult
    public func add(_ voice: SlotVoice) -> Bool {
        for index in 0..<capacity where state(index) == Self.empty {
            voices[index] = Held(voice)
            states[index].store(Self.active, ordering: .releasing)
            return true
        }
        return false
    }

    /// Whether `add` would find a slot (decode side).
    public var hasFree: Bool {
        (0..<capacity).contains { state($0) == Self.empty }
    }

    /// The voice in slot `index` for the decode side (any state but empty).
    public func voice(_ index: Int) -> SlotVoice? {
        state(index) == Self.empty ? nil : voices[index]?.unretained
    }

    public func retire(_ index: Int) {
        _ = states[index].compareExchange(expected: Self.active, desired: Self.retiring, ordering: .acquiringAndReleasing)
    }

    /// Drops the voices the render side has let go of (on the decode side, so none is freed on the render thread).
    public func collectReleased() {
        for index in 0..<capacity where state(index) == Self.released {
            voices[index]?.release()
            voices[index] = nil
            states[index].store(Self.empty, ordering: .releasing)
        }
    }

    // MARK: render side

    /// Whether any voice is playing (atomic loads only).
    public var hasActive: Bool {
        for index in 0..<capacity where states[index].load(ordering: .acquiring) == Self.active { return true }
        return false
    }

    /// Calls `timeline` or `stream` with each active voice; acknowledges retiring ones. Allocation-free.
    @inline(__always)
    public func forEachActive(timeline: (TimelineVoice) -> Void, stream: (StreamVoice) -> Void) {
        for index in 0..<capacity {
            switch states[index].load(ordering: .acquiring) {
            case Self.active:
                switch voices[index]! {
                case .timeline(let voice): timeline(voice.takeUnretainedValue())
                case .stream(let voice): stream(voice.takeUnretainedValue())
                }
            case Self.retiring: states[index].store(Self.released, ordering: .releasing)
            default: break
            }
        }
    }
}

extension VoiceSlots {
    /// Render side, with no device to mix for: lets the decode side collect the voices it retired.
    public func acknowledgeRetiring() { forEachActive(timeline: { _ in }, stream: { _ in }) }
}
