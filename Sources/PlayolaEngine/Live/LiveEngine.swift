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
/// - the render thread mixes the active voices and writes to the sink — it never decodes, allocates,
///   locks, logs or does I/O beyond the write. When the sink fails as a device does when it goes away,
///   it drops it and probes for it again (slowly, or at once when woken by a udev event), without
///   spinning;
/// - the decode thread opens each spin's voice shortly before it sounds (or joins it at the present),
///   keeps the rings ~2 s ahead, retires finished voices, and re-anchors the wall clock before placing
///   each spin. While the device is away it places nothing, and when it is back every spin of the program
///   is placed afresh: playback resumes at the live position.
/// A stream (`setStream`) plays beside the program through the same mixer: its voice is placed once its
/// jitter buffer is full, and the decode thread keeps decoding whatever has arrived.
public final class LiveEngine: Sendable {
    public let mixRate: Int
    private let openSink: @Sendable () throws(AudioSinkError) -> any AudioSink
    private let clock: any WallClock
    private let slots = VoiceSlots()
    private let shared = Mutex(Shared())
    private let framesWritten = Atomic<Int64>(0)
    /// The render thread's latest (frames heard, monotonic µs) reading, for re-anchoring.
    private let heardFrame = Atomic<Int64>(0)
    private let heardMicros = Atomic<Int64>(0)
    private let gainTarget = Atomic<UInt32>(Float(1).bitPattern)
    private let running = Atomic<Bool>(false)
    /// Bumped by the render thread each time a device is opened; the decode side re-places the program.
    private let deviceGeneration = Atomic<Int>(0)
    private let deviceOpen = Atomic<Bool>(false)
    /// The open device's negotiated rate and format (`OutputFormat.packed`); 0 while none is open.
    private let openFormat = Atomic<Int>(0)
    /// Bumped by the decode thread at every pass of its loop: the watchdog's evidence that decoding is not
    /// wedged (the render thread plays silence on its own, so frames advancing prove nothing about it).
    private let decodePasses = Atomic<Int64>(0)
    private let openFile: @Sendable (String) throws(AudioDecoderError) -> any AudioDecoder
    private let probeWake = DispatchSemaphore(value: 0)
    /// Wakes the decode thread at once for a change (a program, a stream, a device); otherwise it looks
    /// every `decodeInterval`, which the rings (2 s and more) cover many times over.
    private let decodeWake = DispatchSemaphore(value: 0)
    private let decodeInterval = DispatchTimeInterval.milliseconds(50)
    public let probeInterval: Double
    /// Seconds of silence with nothing to play after which the device is closed (nil: never).
    public let idleClose: Double?
    private let programEmpty = Atomic<Bool>(true)
    private let blockFrames = 1024
    private let report: @Sendable (PlayEvent) -> Void
    private let onDevice: @Sendable (DeviceEvent) -> Void

    public enum DeviceEvent: Sendable, Equatable {
        case opened
        case lost(AudioSinkError)
        /// The first attempt at start failed: the engine waits for the device.
        case waiting(AudioSinkError)
        /// Closed after `idleClose` with nothing to play; opened again when the program fills.
        case closedIdle
    }

    struct Shared {
        var program: [ProgramEntry] = []
        var clock: ProgramClock?
        var started: Set<String> = []
        var placedForDevice = 0
        var stream: (any LiveSource)?
    }

    /// The decode thread's hold on the stream: its decoder and the voice filling its jitter buffer, then sounding.
    private struct StreamVoice {
        var connection: (any LiveSource)?
        var decoder: (any StreamDecoder)?
        var filling: Voice?
        var sounding: Voice?
        var failed = false
    }

    /// - Parameters:
    ///   - openSink: opens the output (an ALSA PCM); called again after the device went away.
    ///   - onDevice: device events, off the render thread's hot path (once per change).
    public init(
        mixRate: Int, openSink: @escaping @Sendable () throws(AudioSinkError) -> any AudioSink, clock: any WallClock,
        probeInterval: Double = 2, idleClose: Double? = nil, report: @escaping @Sendable (PlayEvent) -> Void = { _ in },
        onDevice: @escaping @Sendable (DeviceEvent) -> Void = { _ in },
        openFile: @escaping @Sendable (String) throws(AudioDecoderError) -> any AudioDecoder = { path throws(AudioDecoderError) in try openAudioFile(path: path) }
    ) {
        self.openFile = openFile
        self.mixRate = mixRate
        self.idleClose = idleClose
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
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startThread(named: "playola-render") { [self] in renderLoop() }
        startThread(named: "playola-decode") { [self] in decodeLoop() }
    }

    /// Stops both threads (after the current block).
    public func shutdown() {
        running.store(false, ordering: .releasing)
        probeWake.signal()
    }

    /// A sound card came or went (udev): probe now rather than at the next slow probe.
    public func wakeProbe() { probeWake.signal() }

    /// Replaces the program. Voices of spins no longer in it fade out; new ones start or join.
    public func setProgram(_ entries: [ProgramEntry]) {
        let ids = Set(entries.map(\.spin.id))
        shared.withLock {
            $0.program = entries
            $0.started.formIntersection(ids) // a spin that left and comes back (a resume) is placed afresh
        }
        noteWhetherEmpty()
        decodeWake.signal()
    }

    /// Plays `connection`'s audio once its jitter buffer is full, in place of the stream before (which fades
    /// out); nil ends the stream.
    package func setStream(_ connection: (any LiveSource)?) {
        shared.withLock { $0.stream = connection }
        noteWhetherEmpty()
        decodeWake.signal()
    }

    /// Nothing to play lets the device close after `idleClose`; something to play opens it at once.
    private func noteWhetherEmpty() {
        let isEmpty = shared.withLock { $0.program.isEmpty && $0.stream == nil }
        let wasEmpty = programEmpty.exchange(isEmpty, ordering: .acquiringAndReleasing)
        if wasEmpty && !isEmpty { probeWake.signal() }
    }

    /// The master gain the render thread ramps to over ~20 ms (volume: never a click).
    public func setGain(_ gain: Float) { gainTarget.store(gain.bitPattern, ordering: .releasing) }

    public var framesPlayed: Int64 { framesWritten.load(ordering: .acquiring) }
    /// Passes of the decode loop so far; stands still while the decode thread is wedged (a file that never
    /// finishes opening or decoding).
    public var decodeProgress: Int64 { decodePasses.load(ordering: .acquiring) }
    public var hasDevice: Bool { deviceOpen.load(ordering: .acquiring) }
    /// What the open device negotiated; nil while none is open.
    public var outputFormat: OutputFormat? { OutputFormat(packed: openFormat.load(ordering: .acquiring)) }

    // MARK: render thread

    private func renderLoop() {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: blockFrames * 2)
        defer { buffer.deallocate() }
        var gain = Float(bitPattern: gainTarget.load(ordering: .relaxed))
        let rampStep = 1 / Float(Double(mixRate) * 0.02)
        var sink: (any AudioSink)?
        var everOpened = false
        var parked = false
        var idleSince: Double?
        // A device is announced back only once it has played something: one that opens but takes no frames
        // (a wedged DAC) would otherwise flap between opened and lost every probe. Each change is said once.
        var announcedOpen = false
        var announcedLost = false
        var confirmAfter: Int64?
        while running.load(ordering: .acquiring) {
            guard let output = sink else {
                slots.forEachActive { _ in } // let the decode side collect voices it retired
                if parked {
                    guard !programEmpty.load(ordering: .acquiring) else {
                        _ = probeWake.wait(timeout: .now() + 1)
                        continue
                    }
                    parked = false
                }
                do throws(AudioSinkError) {
                    let opened = try openSink()
                    guard opened.sampleRate == mixRate else {
                        throw AudioSinkError.unsupported(device: "\(opened)", reason: "runs at \(opened.sampleRate) Hz, the mix at \(mixRate) Hz")
                    }
                    sink = opened
                    everOpened = true
                    deviceOpen.store(true, ordering: .releasing)
                    openFormat.store(OutputFormat(rate: opened.sampleRate, format: opened.sampleFormat).packed, ordering: .releasing)
                    deviceGeneration.add(1, ordering: .releasing)
                    decodeWake.signal() // off the hot path: once per device
                    confirmAfter = framesWritten.load(ordering: .relaxed) + Int64(mixRate / 10)
                } catch {
                    if !everOpened && deviceGeneration.load(ordering: .relaxed) == 0 {
                        everOpened = true // said once
                        onDevice(.waiting(error))
                    }
                    _ = probeWake.wait(timeout: .now() + probeInterval)
                }
                continue
            }
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
                try output.write(buffer, frames: blockFrames)
            } catch {
                // The device went away (or will not play): drop it, say so once, and probe for it.
                sink = nil
                heardMicros.store(0, ordering: .releasing) // the old device's reading says nothing of the next
                deviceOpen.store(false, ordering: .releasing)
                openFormat.store(0, ordering: .releasing)
                confirmAfter = nil
                if announcedOpen || !announcedLost { onDevice(.lost(error)) }
                announcedOpen = false
                announcedLost = true
                continue
            }
            if let idleClose, programEmpty.load(ordering: .relaxed), !slots.hasActive {
                let now = monotonicSeconds()
                if now - (idleSince ?? now) > idleClose {
                    sink = nil // closes the PCM
                    parked = true
                    idleSince = nil
                    heardMicros.store(0, ordering: .releasing)
                    deviceOpen.store(false, ordering: .releasing)
                    openFormat.store(0, ordering: .releasing)
                    confirmAfter = nil
                    announcedOpen = false
                    onDevice(.closedIdle)
                    continue
                }
                idleSince = idleSince ?? now
            } else {
                idleSince = nil
            }
            let written = blockStart + Int64(blockFrames)
            framesWritten.store(written, ordering: .releasing)
            let heard = written - Int64(output.delay())
            heardFrame.store(heard, ordering: .relaxed)
            heardMicros.store(Int64(monotonicSeconds() * 1e6), ordering: .releasing)
            if let threshold = confirmAfter, heard >= threshold { // 0.1 s heard since it opened
                confirmAfter = nil
                announcedOpen = true
                announcedLost = false
                onDevice(.opened)
            }
        }
    }

    // MARK: decode thread

    private func decodeLoop() {
        let lookahead = Int64(mixRate) * 2
        let margin = Int64(Double(mixRate) * 0.1)
        var stream = StreamVoice()
        while running.load(ordering: .acquiring) {
            decodePasses.add(1, ordering: .releasing)
            let device = deviceGeneration.load(ordering: .acquiring)
            let isOpen = deviceOpen.load(ordering: .acquiring)
            // No clock yet also counts as unplaced: the render thread marks the device open before it bumps
            // the generation, so a pass between the two sees an open device of the generation already placed.
            if !isOpen || shared.withLock({ device != $0.placedForDevice || $0.clock == nil }) {
                // No device, or a new one: what was playing belongs to the past; retire it, and once the
                // device is there, place the whole program again from a fresh anchor. A stream's buffer is
                // stale by then: its connection is given up, and the player makes a fresh one.
                for index in 0..<slots.capacity where slots.state(index) == VoiceSlots.active { slots.retire(index) }
                if stream.filling != nil || stream.sounding != nil {
                    stream.connection?.fail("the audio device went away")
                    stream = StreamVoice(connection: stream.connection, failed: true)
                }
                _ = slots.collectReleased()
                if isOpen, heardMicros.load(ordering: .acquiring) > 0 { // the new device has taken a first block
                    shared.withLock {
                        $0.started.removeAll()
                        $0.clock = ProgramClock(rate: mixRate, frame: heardFrame.load(ordering: .acquiring), heardAt: clock.now())
                        $0.placedForDevice = device
                    }
                } else {
                    usleep(isOpen ? 5_000 : 100_000) // no device: nothing to do until it is back
                    continue
                }
            }
            let cursor = framesWritten.load(ordering: .acquiring)
            let (program, programClock, started) = shared.withLock { ($0.program, $0.clock!, $0.started) }
            let wanted = Set(program.map(\.spin.id))
            // Voices whose spin left the program fade out, then retire; so do voices that played out.
            for index in 0..<slots.capacity {
                guard let voice = slots.voice(index), slots.state(index) == VoiceSlots.active else { continue }
                if voice.isLive {
                    // The stream's voice: decode whatever has arrived; retire it once silent or played out.
                    if voice.isSilenced.load(ordering: .acquiring) || (voice.isExhausted && voice.ring.availableToRead == 0) {
                        slots.retire(index)
                    } else {
                        voice.fill(upTo: .max)
                    }
                    continue
                }
                if !wanted.contains(voice.spin.id) {
                    voice.fadeOutRequested.store(true, ordering: .releasing)
                }
                if voice.isSilenced.load(ordering: .acquiring) {
                    slots.retire(index)
                } else if voice.isExhausted && voice.ring.availableToRead == 0 {
                    reportEnd(voice, clock: programClock)
                    slots.retire(index)
                } else {
                    voice.fill(upTo: cursor - voice.startFrame + lookahead)
                }
            }
            _ = slots.collectReleased()
            serviceStream(&stream, at: cursor + margin)
            // Place spins that sound within the lookahead and have no voice yet. With every slot taken, a
            // spin is skipped without opening its file (the slots bound the decoders and rings alive at once),
            // and the skipped ones of a pass are reported together.
            var skipped: (first: Spin, count: Int, at: Date)?
            for entry in program where !started.contains(entry.spin.id) {
                guard let file = entry.file else { continue }
                var placing = programClock
                if let reading = currentHeardFrame() { placing.reanchor(frame: reading.frame, heardAt: reading.at) }
                let start = placing.frame(at: entry.spin.airtime)
                let length = entry.spin.audioBlock.frames(atRate: mixRate)
                guard start < cursor + lookahead, start + length > cursor + margin else { continue }
                shared.withLock { $0.clock = placing; $0.started.insert(entry.spin.id) }
                guard slots.hasFree else {
                    skipped = (skipped?.first ?? entry.spin, (skipped?.count ?? 0) + 1, skipped?.at ?? placing.date(atFrame: start))
                    continue
                }
                open(entry.spin, file: file, startFrame: start, join: max(0, cursor + margin - start), clock: placing)
            }
            if let skipped {
                report(PlayEvent(time: skipped.at, kind: .error, spin: skipped.first,
                                 detail: "too many overlapping spins: \(skipped.count) not played (at most \(slots.capacity) at once)"))
            }
            _ = decodeWake.wait(timeout: .now() + decodeInterval)
        }
    }

    /// Follows `setStream`: fades out a replaced stream's voice; for the current one, makes its decoder once
    /// the format is known, fills a voice's ring up to the prebuffer, then places it at `frame`.
    private func serviceStream(_ stream: inout StreamVoice, at frame: Int64) {
        let wanted = shared.withLock { $0.stream }
        if stream.connection !== wanted {
            stream.sounding?.fadeOutRequested.store(true, ordering: .releasing)
            stream = StreamVoice(connection: wanted)
        }
        guard let connection = wanted, !stream.failed else { return }
        if let voice = stream.sounding {
            if let failure = voice.failure { fail(&stream, "\(failure)") }
            return
        }
        do throws(AudioDecoderError) {
            if stream.decoder == nil { stream.decoder = try connection.makeDecoder() }
            guard let decoder = stream.decoder, try decoder.prepare() else { return }
            if stream.filling == nil {
                stream.filling = try Voice(
                    spin: Self.streamSpin(connection), file: connection.url, decoder: decoder, mixRate: mixRate,
                    startFrame: 0, joinFrame: 0, ringSeconds: connection.maxBufferSeconds,
                    rebufferSeconds: connection.prebufferSeconds)
            }
            let voice = stream.filling!
            voice.fill(upTo: .max)
            if let failure = voice.failure { throw failure }
            guard voice.ring.availableToRead >= voice.rebufferFrames || voice.isExhausted else { return }
            voice.startFrame = frame
            guard slots.add(voice) else { return fail(&stream, "too many voices") }
            stream.sounding = voice
            stream.filling = nil
            connection.markSounding()
        } catch {
            fail(&stream, "\(error)")
        }
    }

    private func fail(_ stream: inout StreamVoice, _ reason: String) {
        stream.connection?.fail(reason)
        stream.sounding?.fadeOutRequested.store(true, ordering: .releasing)
        stream = StreamVoice(connection: stream.connection, failed: true)
    }

    /// The voice's spin: a stream has no airtime or fades, only a name (the player publishes the titles).
    private static func streamSpin(_ connection: any LiveSource) -> Spin {
        Spin(id: "stream:" + connection.url, stationID: connection.name, airtime: Date(), startingVolume: 1, fades: [],
             audioBlock: AudioBlock(id: connection.url, title: connection.name, artist: "", durationMS: 0,
                                    endOfMessageMS: 0, downloadURL: nil))
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
            let voice = try Voice(spin: spin, file: file, decoder: try openFile(file), mixRate: mixRate,
                                  startFrame: startFrame, joinFrame: join)
            voice.fill(upTo: join + Int64(mixRate))
            guard slots.add(voice) else {
                report(PlayEvent(time: heard, kind: .error, spin: spin, detail: "too many overlapping spins"))
                return
            }
            report(PlayEvent(time: heard, kind: join == 0 ? .start : .join, spin: spin,
                             detail: join == 0 ? "" : "at \((Double(join) / Double(mixRate) * 1000).rounded() / 1000) s into the file"))
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
