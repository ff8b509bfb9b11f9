import PlayolaEngine
import Synchronization

/// A sound card the test plugs and unplugs: each open gives a new sink (a new device), paced like one.
package final class TestCard: Sendable {
    package enum Fault: Sendable { case none, unplugged, xrunStorm }

    package let fault = Mutex<Fault>(.none)
    package let opens = Atomic<Int>(0)
    package let closes = Atomic<Int>(0)
    package let current = Mutex<PacedSink?>(nil)

    package init() {}

    package func open() throws(AudioSinkError) -> any AudioSink {
        guard fault.withLock({ $0 }) != .unplugged else { throw .deviceGone(device: "test-card", reason: "No such device") }
        opens.add(1, ordering: .relaxed)
        let sink = TestCardSink(card: self)
        current.withLock { $0 = sink.paced }
        return sink
    }

    package var audio: PacedSink? { current.withLock { $0 } }
}

final class TestCardSink: AudioSink {
    let card: TestCard
    let paced = PacedSink()
    init(card: TestCard) { self.card = card }
    deinit { card.closes.add(1, ordering: .relaxed) }
    var sampleRate: Int { 48000 }
    func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        switch card.fault.withLock({ $0 }) {
        case .unplugged: throw .deviceGone(device: "test-card", reason: "No such device")
        case .xrunStorm: throw .xrun(device: "test-card")
        case .none: try paced.write(samples, frames: frames)
        }
    }
    func drain() throws(AudioSinkError) {}
    func delay() -> Int { paced.delay() }
}

