import Dispatch
import FoundationEssentials
import Glibc
import PlayolaDecoding
import PlayolaMixer
import PlayolaModel
import PlayolaOutput
import PlayolaSupport
import Synchronization

/// Plays a changing program of spins on a real-time sink, on two threads:
/// - the render thread (this file) waits for room on the sink, mixes the active voices and writes — it never
///   decodes, allocates, locks, logs or does I/O beyond that wait and the write. The decode thread can end the
///   wait (`renderWake`) when a start from silence asks for a rewind. What becomes of the device (open it, drop
///   it when it fails as a device does when it goes away, probe for it again slowly or at once when woken by a
///   udev event, close it when idle, say each change once) is decided by its `DeviceLifecycle`;
/// - the decode thread (`LiveEngine+Decode`) places each spin's voice and keeps the rings ahead; while the
///   device is away it places nothing, and when it is back the program is placed afresh at the live position.
/// A stream (`setStream`, `LiveEngine+Stream`) plays beside the program through the same mixer.
public final class LiveEngine: Sendable {
    public let mixRate: Int
    private let openSink: @Sendable () throws(AudioSinkError) -> any AudioSink
    let clock: any WallClock
    let slots = VoiceSlots()
    let shared = Mutex(Shared())
    let fromRender = RenderPublished()
    let fromDecode = DecodePublished()
    let fromControl = ControlRequests()
    let openFile: @Sendable (String) throws(AudioDecoderError) -> any AudioDecoder
    private let probeWake = DispatchSemaphore(value: 0)
    /// Wakes the render thread from its wait for the device when a rewind is asked for (a start from silence).
    let renderWake = WakeEvent()
    /// Wakes the decode thread at once for a change (a program, a stream, a device); otherwise it looks
    /// every `decodeInterval` while it plays files, which their 2 s rings cover twice over (a spin due within
    /// the 2 s lookahead is still placed a second ahead), and every `streamInterval` while a stream is
    /// connected (its drift loop reads the buffer at each look). Each wake-up costs more than the pass's own
    /// work (the kernel's switch, and the decoder's code and tables fetched again into a cold cache: 20 looks
    /// a second cost 7.6 s/h more than 2, bench/PROFILE.md), so it is not shorter. A stream filling its jitter
    /// buffer, or whose decoded audio runs below 1.5 s, and a voice just opened, are looked at again after
    /// `fillingInterval`, so a stream sounds as soon as its buffer is full and what arrives reaches a ring
    /// before it runs dry. The appliance's watchdog tolerates two seconds without a pass: keep it under.
    let decodeWake = DispatchSemaphore(value: 0)
    let decodeInterval = DispatchTimeInterval.milliseconds(1000)
    let streamInterval = DispatchTimeInterval.milliseconds(500)
    let fillingInterval = DispatchTimeInterval.milliseconds(200)
    public let probeInterval: Double
    /// Seconds of silence with nothing to play after which the device is closed (nil: never).
    public let idleClose: Double?
    /// How a stream is held against the DAC's clock (`[player] clock_hold`).
    public let clockHold: ClockHold
    private let blockFrames = 1024
    /// What a rewind leaves queued on the device, however late it comes: one block, which covers the write of
    /// the voice's first block that follows it at once (a start from silence waits that much longer: 23 ms).
    private var rewindKeep: Int64 { Int64(blockFrames) }
    let report: @Sendable (PlayEvent) -> Void
    private let onDevice: @Sendable (DeviceEvent) -> Void
    /// Device events from the render thread, handed on by the decode thread (`deliverDeviceEvents`).
    private let deviceEvents = DeviceMailbox<DeviceEvent>()

    public enum DeviceEvent: Sendable, Equatable {
        case opened
        case lost(AudioSinkError)
        /// The first attempt at start failed: the engine waits for the device.
        case waiting(AudioSinkError)
        /// Closed after `idleClose` with nothing to play; opened again when the program fills.
        case closedIdle
        /// While the device is away (lost, or not there at start), an attempt to bring it back failed: the
        /// open itself (`openFor` nil), or a device that opened and failed before it played 0.1 s, `openFor`
        /// seconds after it opened. For the log: the player's state does not change.
        case attemptFailed(AudioSinkError, openFor: Double?)
    }

    struct Shared {
        var program: [ProgramEntry] = []
        var clock: ProgramClock?
        var started: Set<String> = []
        var placedForDevice = 0
        var stream: (any StreamSource)?
        var streamHold: StreamHold?
    }

    /// How the sounding stream's buffer is held against the server's clock (`DriftController`).
    public struct StreamHold: Sendable, Equatable {
        /// Seconds of audio decoded and not yet heard, smoothed.
        public var bufferSeconds: Double
        /// How much faster (+) or slower (−) than it arrives the stream is played, in ppm: the two clocks'
        /// difference, once learned. Nil during the first minute, while the level settles.
        public var correctionPPM: Double?
    }

    /// The sounding stream's hold, nil without one.
    public var streamHold: StreamHold? { shared.withLock { $0.streamHold } }

    /// - Parameters:
    ///   - openSink: opens the output (an ALSA PCM); called again after the device went away.
    ///   - onDevice: device events (once per change, and each failed attempt while the device is away), called
    ///     on the decode thread: the render thread only posts them.
    ///   - clockHold: how a stream follows its drift loop: frame stuffing, or resampling every frame.
    public init(
        mixRate: Int, openSink: @escaping @Sendable () throws(AudioSinkError) -> any AudioSink, clock: any WallClock,
        probeInterval: Double = 2, idleClose: Double? = nil, clockHold: ClockHold = .stuff,
        report: @escaping @Sendable (PlayEvent) -> Void = { _ in },
        onDevice: @escaping @Sendable (DeviceEvent) -> Void = { _ in },
        openFile: @escaping @Sendable (String) throws(AudioDecoderError) -> any AudioDecoder = { path throws(AudioDecoderError) in try openAudioFile(path: path) }
    ) {
        self.openFile = openFile
        self.mixRate = mixRate
        self.idleClose = idleClose
        self.clockHold = clockHold
        self.openSink = openSink
        self.clock = clock
        self.probeInterval = probeInterval
        self.report = report
        self.onDevice = onDevice
    }

    /// An engine on one sink that is already open (tests, WAV output).
    public convenience init(
        sink: any AudioSink, clock: any WallClock, report: @escaping @Sendable (PlayEvent) -> Void = { _ in },
        openFile: @escaping @Sendable (String) throws(AudioDecoderError) -> any AudioDecoder = { path throws(AudioDecoderError) in try openAudioFile(path: path) }
    ) {
        let box = SinkHandoff(sink)
        self.init(mixRate: sink.sampleRate, openSink: { box.sink }, clock: clock, report: report, openFile: openFile)
    }

    public func start() {
        guard !fromControl.running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startThread(named: "playola-render") { [self] in renderLoop() }
        startThread(named: "playola-decode") { [self] in decodeLoop() }
    }

    /// Stops both threads (after the current block).
    public func shutdown() {
        fromControl.running.store(false, ordering: .releasing)
        probeWake.signal()
    }

    /// A sound card came or went (udev): probe now rather than at the next slow probe.
    public func wakeProbe() { probeWake.signal() }

    /// Replaces the program. Voices of spins no longer in it fade out; new ones start or join.
    public func setProgram(_ entries: [ProgramEntry]) {
        // The station player sends its program at every tick, four a second, mostly unchanged: only a change
        // wakes the decode thread (bench/PROFILE.md).
        let changed = shared.withLock { state -> Bool in
            guard state.program != entries else { return false }
            state.program = entries
            state.started.formIntersection(Set(entries.map(\.spin.id))) // a spin that left and comes back (a resume) is placed afresh
            return true
        }
        guard changed else { return }
        noteWhetherEmpty()
        decodeWake.signal()
    }

    /// Plays `connection`'s audio once its jitter buffer is full, in place of the stream before (which fades
    /// out); nil ends the stream.
    package func setStream(_ connection: (any StreamSource)?) {
        shared.withLock { $0.stream = connection }
        noteWhetherEmpty()
        decodeWake.signal()
    }

    /// Nothing to play lets the device close after `idleClose`; something to play opens it at once.
    private func noteWhetherEmpty() {
        let isEmpty = shared.withLock { $0.program.isEmpty && $0.stream == nil }
        let wasEmpty = fromControl.programEmpty.exchange(isEmpty, ordering: .acquiringAndReleasing)
        if wasEmpty && !isEmpty { probeWake.signal() }
    }

    /// The master gain the render thread ramps to over ~20 ms (volume: never a click).
    public func setGain(_ gain: Float) { fromControl.gain.store(gain.bitPattern, ordering: .releasing) }

    /// Bass and treble in dB (`ToneControl.range`); reached over about 160 ms, never a click.
    public func setTone(bass: Double, treble: Double) {
        fromControl.tone.store(ToneControl.packed(bass: bass, treble: treble), ordering: .releasing)
    }

    public var framesPlayed: Int64 { fromRender.framesWritten.load(ordering: .acquiring) }
    /// Passes of the decode loop so far; stands still while the decode thread is wedged (a file that never
    /// finishes opening or decoding).
    public var decodeProgress: Int64 { fromDecode.passes.load(ordering: .acquiring) }
    public var hasDevice: Bool { fromRender.deviceOpen.load(ordering: .acquiring) }
    /// What the open device negotiated; nil while none is open.
    public var outputFormat: OutputFormat? { OutputFormat(packed: fromRender.openFormat.load(ordering: .acquiring)) }

    /// Called by the render thread: the decode thread, woken, hands the event on.
    private func post(_ event: DeviceEvent) {
        deviceEvents.post(event)
        decodeWake.signal()
    }

    /// Called by the decode thread at each pass: the render thread's device events, in order, to `onDevice`.
    func deliverDeviceEvents() {
        while let event = deviceEvents.take() { onDevice(event) }
    }

    // MARK: render thread

    private func renderLoop() {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * 2)
        defer { buffer.deallocate() }
        var gain = Float(bitPattern: fromControl.gain.load(ordering: .relaxed))
        let rampStep = 1 / Float(Double(mixRate) * 0.02)
        var tone = ToneControl(sampleRate: mixRate)
        var toneApplied: UInt32 = 0
        var lifecycle = DeviceLifecycle(probeInterval: probeInterval, idleClose: idleClose, confirmFrames: Int64(mixRate / 10))
        var sink: (any AudioSink)?
        /// The first frame of the silence at the end of what was written (`quietFrom`), Int64.max if none.
        var quietStart = Int64.max
        while fromControl.running.load(ordering: .acquiring) {
            guard let output = sink else {
                slots.acknowledgeRetiring()
                quietStart = .max // what the last device held says nothing of the next
                perform(lifecycle.withoutDevice(programEmpty: fromControl.programEmpty.load(ordering: .acquiring)), &lifecycle, &sink)
                continue
            }
            output.awaitRoom(for: blockFrames, orUntil: renderWake)
            var blockStart = fromRender.framesWritten.load(ordering: .relaxed)
            let quiet = !slots.hasActive
            if !quiet { // a request waits for its voice, so the voice's first block is the one rewound to
                let request = fromDecode.rewindTo.exchange(.max, ordering: .acquiringAndReleasing)
                if request < blockStart, quietStart <= request {
                    // The device played on while the voice was opened: never take back the frames about to be
                    // heard. A rewind to the hardware's pointer empties the device, which underruns at once
                    // (the image test's USB card then stood still after the xrun's prepare and was reopened,
                    // again and again); a rewind that comes short is safe, the voice skips what it missed.
                    let room = Int64(output.rewindableFrames()) - rewindKeep
                    let frames = min(blockStart - request, room)
                    if frames > 0 {
                        blockStart -= Int64(output.rewind(frames: Int(frames)))
                        fromRender.framesWritten.store(blockStart, ordering: .releasing)
                    }
                }
            }
            Mixer.mix(slots, blockStart: blockStart, frames: blockFrames, into: buffer)
            let target = Float(bitPattern: fromControl.gain.load(ordering: .acquiring))
            if gain != 1 || target != 1 {
                for frame in 0..<blockFrames {
                    if gain < target { gain = min(target, gain + rampStep) } else if gain > target { gain = max(target, gain - rampStep) }
                    buffer[2 * frame] *= gain
                    buffer[2 * frame + 1] *= gain
                }
            }
            let toneSetting = fromControl.tone.load(ordering: .acquiring)
            if toneSetting != toneApplied {
                toneApplied = toneSetting
                tone.set(packed: toneSetting)
            }
            tone.process(buffer, frames: blockFrames)
            do {
                try output.write(buffer, frames: blockFrames)
            } catch {
                perform(lifecycle.writeFailed(error, at: monotonicSeconds()), &lifecycle, &sink)
                continue
            }
            let idle = lifecycle.wroteBlock(idle: fromControl.programEmpty.load(ordering: .relaxed) && !slots.hasActive, at: monotonicSeconds())
            guard case .none = idle else {
                perform(idle, &lifecycle, &sink)
                continue
            }
            let written = blockStart + Int64(blockFrames)
            fromRender.framesWritten.store(written, ordering: .releasing)
            quietStart = quiet ? min(quietStart, blockStart) : .max
            fromRender.quietFrom.store(quietStart, ordering: .releasing)
            if quiet {
                let rewindable = output.rewindableFrames()
                fromRender.replaceableFrom.store(rewindable > blockFrames * 2 ? written - Int64(rewindable) : .max, ordering: .releasing)
            }
            let heard = written - Int64(output.delay())
            fromRender.heardFrame.store(heard, ordering: .relaxed)
            fromRender.heardMicros.store(Int64(monotonicSeconds() * 1e6), ordering: .releasing)
            perform(lifecycle.heard(heard), &lifecycle, &sink)
        }
    }

    /// Carries out on the render thread what the device's lifecycle decided.
    private func perform(_ action: DeviceLifecycle.Action, _ lifecycle: inout DeviceLifecycle, _ sink: inout (any AudioSink)?) {
        switch action {
        case .none:
            break
        case .open:
            do throws(AudioSinkError) {
                sink = try openDevice()
                lifecycle.opened(framesWritten: fromRender.framesWritten.load(ordering: .relaxed), at: monotonicSeconds())
            } catch {
                perform(lifecycle.openFailed(error), &lifecycle, &sink)
            }
        case .wait(let seconds):
            _ = probeWake.wait(timeout: .now() + seconds)
        case .post(let event):
            post(event)
        case .postAndWait(let event, let seconds):
            post(event)
            _ = probeWake.wait(timeout: .now() + seconds)
        case .close(let event):
            sink = nil // closes the PCM
            fromRender.heardMicros.store(0, ordering: .releasing) // the old device's reading says nothing of the next
            fromRender.deviceOpen.store(false, ordering: .releasing)
            fromRender.openFormat.store(0, ordering: .releasing)
            post(event)
        }
    }

    /// Opens the device for the mix and hands it to the decode side, which places the program afresh on it.
    private func openDevice() throws(AudioSinkError) -> any AudioSink {
        let opened = try openSink()
        guard opened.sampleRate == mixRate else {
            throw AudioSinkError.unsupported(device: "\(opened)", reason: "runs at \(opened.sampleRate) Hz, the mix at \(mixRate) Hz")
        }
        fromRender.quietFrom.store(.max, ordering: .releasing)
        fromDecode.rewindTo.store(.max, ordering: .releasing)
        fromRender.deviceOpen.store(true, ordering: .releasing)
        fromRender.openFormat.store(OutputFormat(rate: opened.sampleRate, format: opened.sampleFormat).packed, ordering: .releasing)
        fromRender.deviceGeneration.add(1, ordering: .releasing)
        decodeWake.signal() // off the hot path: once per device
        return opened
    }
}
