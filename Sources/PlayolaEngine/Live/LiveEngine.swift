import FoundationEssentials
import Glibc
import Synchronization

/// Plays a changing program of spins on a real-time sink, on two threads:
/// - the render thread mixes the active voices and writes to the sink — it never decodes, allocates,
///   locks, logs or does I/O beyond the write;
/// - the decode thread opens each spin's voice shortly before it sounds (or joins it at the present),
///   keeps the rings ~2 s ahead, retires finished voices, and re-anchors the wall clock before placing
///   each spin.
public final class LiveEngine: Sendable {
    public let mixRate: Int
    private let output: SinkBox
    private let clock: any WallClock
    private let slots = VoiceSlots()
    private let shared = Mutex(Shared())
    private let framesWritten = Atomic<Int64>(0)
    /// The render thread's latest (frames written, device delay, monotonic µs) reading.
    private let heardFrame = Atomic<Int64>(0)
    private let heardMicros = Atomic<Int64>(0)
    private let gainTarget = Atomic<UInt32>(Float(1).bitPattern)
    private let running = Atomic<Bool>(false)
    private let sinkFailure = Mutex<AudioSinkError?>(nil)
    private let blockFrames = 1024
    private let report: @Sendable (PlayEvent) -> Void

    /// What the decode side knows: the program, the clock mapping, and which spins have voices.
    struct Shared {
        var program: [ProgramEntry] = []
        var clock: ProgramClock?
        var started: Set<String> = []
    }

    /// - Parameters:
    ///   - sink: a paced sink (ALSA, or a test sink that blocks like one); only the render thread uses it.
    ///   - latency: seconds from a write to its sound, used until the sink can say (`ALSASink.delay`).
    public init(sink: any AudioSink, clock: any WallClock, report: @escaping @Sendable (PlayEvent) -> Void = { _ in }) {
        output = SinkBox(sink)
        mixRate = sink.sampleRate
        self.clock = clock
        self.report = report
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let now = clock.now()
        shared.withLock { $0.clock = ProgramClock(rate: mixRate, frame: 0, heardAt: now) }
        startThread(named: "playola-render") { [self] in renderLoop() }
        startThread(named: "playola-decode") { [self] in decodeLoop() }
    }

    /// Stops both threads (after the current block).
    public func shutdown() { running.store(false, ordering: .releasing) }

    /// Replaces the program. Voices of spins no longer in it are retired; new ones start or join.
    public func setProgram(_ entries: [ProgramEntry]) {
        let ids = Set(entries.map(\.spin.id))
        shared.withLock {
            $0.program = entries
            $0.started.formIntersection(ids) // a spin that left and comes back (a resume) is placed afresh
        }
    }

    /// The master gain the render thread ramps to over ~20 ms (pause, stop, volume: never a click).
    public func setGain(_ gain: Float) { gainTarget.store(gain.bitPattern, ordering: .releasing) }

    public var framesPlayed: Int64 { framesWritten.load(ordering: .acquiring) }

    /// The sink's error, if it stopped the render thread.
    public var failure: AudioSinkError? { sinkFailure.withLock { $0 } }

    // MARK: render thread

    private func renderLoop() {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * 2)
        defer { buffer.deallocate() }
        let sink = output.sink
        var gain = Float(bitPattern: gainTarget.load(ordering: .relaxed))
        let rampStep = 1 / Float(Double(mixRate) * 0.02)
        while running.load(ordering: .acquiring) {
            let blockStart = framesWritten.load(ordering: .relaxed)
            Mixer.mix(slots, blockStart: blockStart, frames: blockFrames, into: buffer)
            let target = Float(bitPattern: gainTarget.load(ordering: .acquiring))
            if gain != 1 || target != 1 {
                for frame in 0..<blockFrames {
                    if gain < target { gain = min(target, gain + rampStep) } else if gain > target { gain = max(target, gain - rampStep) }
                    buffer[2 * frame] *= gain
                    buffer[2 * frame + 1] *= gain
                }
            }
            do {
                try sink.write(buffer, frames: blockFrames)
            } catch {
                sinkFailure.withLock { $0 = error } // off the hot path: the thread ends here
                running.store(false, ordering: .releasing)
                return
            }
            let written = blockStart + Int64(blockFrames)
            framesWritten.store(written, ordering: .releasing)
            heardFrame.store(written - Int64(output.delay()), ordering: .relaxed)
            heardMicros.store(Int64(monotonicSeconds() * 1e6), ordering: .releasing)
        }
    }

    // MARK: decode thread

    private func decodeLoop() {
        let lookahead = Int64(mixRate) * 2
        let margin = Int64(Double(mixRate) * 0.1)
        while running.load(ordering: .acquiring) {
            let cursor = framesWritten.load(ordering: .acquiring)
            let (program, clock, started) = shared.withLock { ($0.program, $0.clock!, $0.started) }
            let wanted = Set(program.map(\.spin.id))
            // Voices whose spin left the program fade out, then retire; so do voices that played out.
            for index in 0..<slots.capacity {
                guard let voice = slots.voice(index), slots.state(index) == VoiceSlots.active else { continue }
                if !wanted.contains(voice.spin.id) {
                    voice.fadeOutRequested.store(true, ordering: .releasing)
                }
                if voice.isSilenced.load(ordering: .acquiring) {
                    slots.retire(index)
                } else if voice.isExhausted && voice.ring.availableToRead == 0 {
                    reportEnd(voice, clock: clock)
                    slots.retire(index)
                } else {
                    voice.fill(upTo: cursor - voice.startFrame + lookahead)
                }
            }
            _ = slots.collectReleased()
            // Place spins that sound within the lookahead and have no voice yet.
            for entry in program where !started.contains(entry.spin.id) {
                guard let file = entry.file else { continue }
                var placing = clock
                if let reading = currentHeardFrame() { placing.reanchor(frame: reading.frame, heardAt: reading.at) }
                let start = placing.frame(at: entry.spin.airtime)
                let length = Int64(entry.spin.audioBlock.durationMS) * Int64(mixRate) / 1000
                guard start < cursor + lookahead, start + length > cursor + margin else { continue }
                shared.withLock { $0.clock = placing; $0.started.insert(entry.spin.id) }
                open(entry.spin, file: file, startFrame: start, join: max(0, cursor + margin - start), clock: placing)
            }
            usleep(10_000)
        }
    }

    /// The mix frame heard right now, extrapolated from the render thread's last reading.
    private func currentHeardFrame() -> (frame: Int64, at: Date)? {
        let micros = heardMicros.load(ordering: .acquiring)
        guard micros > 0 else { return nil }
        let frame = heardFrame.load(ordering: .relaxed)
        let elapsed = monotonicSeconds() - Double(micros) / 1e6
        return (frame + Int64(elapsed * Double(mixRate)), clock.now())
    }

    private func open(_ spin: Spin, file: String, startFrame: Int64, join: Int64, clock: ProgramClock) {
        let heard = clock.date(atFrame: startFrame + join)
        do {
            let voice = try Voice(spin: spin, file: file, decoder: try openAudioFile(path: file), mixRate: mixRate,
                                  startFrame: startFrame, joinFrame: join)
            voice.fill(upTo: join + Int64(mixRate))
            guard slots.add(voice) else {
                report(PlayEvent(time: heard, kind: .error, spin: spin, detail: "too many overlapping spins"))
                return
            }
            report(PlayEvent(time: heard, kind: join == 0 ? .start : .join, spin: spin,
                             detail: join == 0 ? "" : "at \(Double(join) / Double(mixRate)) s into the file"))
        } catch {
            report(PlayEvent(time: heard, kind: .error, spin: spin, detail: "\(error)"))
        }
    }

    private func reportEnd(_ voice: Voice, clock: ProgramClock) {
        let ended = clock.date(atFrame: voice.startFrame + voice.writeFrame)
        if let failure = voice.failure {
            report(PlayEvent(time: ended, kind: .error, spin: voice.spin, detail: "\(failure)"))
        } else {
            report(PlayEvent(time: ended, kind: .end, spin: voice.spin, detail: ""))
        }
    }
}

/// The sink, used by the render thread alone once started (and `delay` read there too).
// @unchecked Sendable: after `start()`, only the render thread calls into the sink.
struct SinkBox: @unchecked Sendable {
    let sink: any AudioSink
    init(_ sink: any AudioSink) { self.sink = sink }
    func delay() -> Int { sink.delay() }
}
