import FoundationEssentials
import PlayolaDecoding
import PlayolaMixer
import PlayolaModel
import PlayolaOutput

/// Renders a schedule as one program stream in virtual time: the clock is the count of frames written,
/// so minutes render in seconds, and the clock waits for decoding instead of playing silence, so a
/// render is deterministic. The same voices and mixer play in real time.
public final class ProgramRenderer {
    public let schedule: Schedule
    public let mixRate: Int
    /// The wall-clock instant of mix frame 0.
    public let origin: Date
    private let resolveFile: (Spin) -> String?
    private let sink: any AudioSink
    private let clock: ProgramClock
    private let placer: SpinPlacer
    private let reporter: PlayReporter
    private var voices: [TimelineVoice] = []
    /// Spins already opened (or failed), by index into `schedule.spins`.
    private var handled: Set<Int> = []
    private var nextCandidate = 0
    private var framesRendered: Int64 = 0
    private let blockFrames = 4096
    private let mixBuffer: UnsafeMutablePointer<Float>
    /// Bass and treble, after the mix, as the real-time engine applies them.
    public var tone: ToneControl

    public init(
        schedule: Schedule, from origin: Date, sink: any AudioSink, resolveFile: @escaping (Spin) -> String?,
        report: @escaping (PlayEvent) -> Void
    ) {
        self.schedule = schedule
        self.origin = origin
        self.sink = sink
        self.mixRate = sink.sampleRate
        self.resolveFile = resolveFile
        clock = ProgramClock(rate: sink.sampleRate, heardAt: origin)
        placer = SpinPlacer(mixRate: sink.sampleRate, openFile: { path throws(AudioDecoderError) in try openAudioFile(path: path) })
        reporter = PlayReporter(mixRate: sink.sampleRate, report: report)
        mixBuffer = .allocate(capacity: blockFrames * 2)
        tone = ToneControl(sampleRate: sink.sampleRate)
    }

    deinit { mixBuffer.deallocate() }

    /// The mix frame at which `date` is heard.
    public func frame(at date: Date) -> Int64 { clock.frame(at: date) }

    public func date(atFrame frame: Int64) -> Date { clock.date(atFrame: frame) }

    /// Renders the next `frames` frames into the sink.
    public func render(frames total: Int64) throws(AudioSinkError) {
        let end = framesRendered + total
        while framesRendered < end {
            let count = Int(min(Int64(blockFrames), end - framesRendered))
            let blockEnd = framesRendered + Int64(count)
            openVoices(blockStart: framesRendered, blockEnd: blockEnd)
            for voice in voices { voice.fill(upTo: blockEnd - voice.startFrame) }
            Mixer.mix(voices, blockStart: framesRendered, frames: count, into: mixBuffer)
            tone.process(mixBuffer, frames: count)
            try sink.write(mixBuffer, frames: count)
            framesRendered = blockEnd
            retireVoices()
        }
    }

    /// Opens every spin that sounds in `[blockStart, blockEnd)` and has no voice yet.
    private func openVoices(blockStart: Int64, blockEnd: Int64) {
        let spins = schedule.spins
        while nextCandidate < spins.count, handled.contains(nextCandidate) { nextCandidate += 1 }
        var skipped: (first: Spin, at: SpinPlacement, count: Int)?
        for index in nextCandidate..<spins.count where !handled.contains(index) {
            let spin = spins[index]
            guard clock.frame(at: spin.airtime) < blockEnd else { break }
            guard let placement = placer.place(spin, clock: clock, window: blockStart..<blockEnd) else { continue }
            handled.insert(index)
            guard voices.count < VoiceSlots.defaultCapacity else {
                skipped = (skipped?.first ?? spin, skipped?.at ?? placement, (skipped?.count ?? 0) + 1)
                continue
            }
            guard let path = resolveFile(spin) else {
                reporter.failed(spin, at: placement, clock: clock, "no audio file for \(spin.audioBlock.downloadURL ?? "(no URL)")")
                continue
            }
            do {
                voices.append(try placer.voice(for: spin, file: path, at: placement))
                reporter.started(spin, at: placement, clock: clock)
            } catch {
                reporter.failed(spin, at: placement, clock: clock, "\(error)")
            }
        }
        if let skipped {
            reporter.skipped(first: skipped.first, at: skipped.at, count: skipped.count, capacity: VoiceSlots.defaultCapacity, clock: clock)
        }
    }

    private func retireVoices() {
        voices.removeAll { voice in
            guard voice.isPlayedOut else { return false }
            reporter.ended(voice, clock: clock)
            return true
        }
    }
}
