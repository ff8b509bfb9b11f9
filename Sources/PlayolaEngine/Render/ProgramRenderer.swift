import FoundationEssentials
import PlayolaDecoding
import PlayolaMixer
import PlayolaModel
import PlayolaOutput

/// Renders a schedule as one program stream in virtual time: the clock is the count of frames written,
/// so minutes render in seconds, and the clock waits for decoding instead of playing silence, so a
/// render is deterministic. The same voices and mixer play live.
public final class ProgramRenderer {
    public let schedule: Schedule
    public let mixRate: Int
    /// The wall-clock instant of mix frame 0.
    public let origin: Date
    private let resolveFile: (Spin) -> String?
    private let sink: any AudioSink
    private let report: (PlayEvent) -> Void
    private var voices: [Voice] = []
    /// Spins already opened (or failed), by index into `schedule.spins`.
    private var handled: Set<Int> = []
    private var nextCandidate = 0
    private var framesRendered: Int64 = 0
    private let blockFrames = 4096
    private let mixBuffer: UnsafeMutablePointer<Float>

    public init(
        schedule: Schedule, from origin: Date, sink: any AudioSink, resolveFile: @escaping (Spin) -> String?,
        report: @escaping (PlayEvent) -> Void
    ) {
        self.schedule = schedule
        self.origin = origin
        self.sink = sink
        self.mixRate = sink.sampleRate
        self.resolveFile = resolveFile
        self.report = report
        mixBuffer = .allocate(capacity: blockFrames * 2)
    }

    deinit { mixBuffer.deallocate() }

    /// The mix frame at which `date` is heard.
    public func frame(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince(origin) * Double(mixRate)).rounded())
    }

    public func date(atFrame frame: Int64) -> Date {
        origin.addingTimeInterval(Double(frame) / Double(mixRate))
    }

    /// Renders the next `frames` frames into the sink.
    public func render(frames total: Int64) throws(AudioSinkError) {
        let end = framesRendered + total
        while framesRendered < end {
            let count = Int(min(Int64(blockFrames), end - framesRendered))
            let blockEnd = framesRendered + Int64(count)
            openVoices(blockStart: framesRendered, blockEnd: blockEnd)
            for voice in voices { voice.fill(upTo: blockEnd - voice.startFrame) }
            Mixer.mix(voices, blockStart: framesRendered, frames: count, into: mixBuffer)
            try sink.write(mixBuffer, frames: count)
            framesRendered = blockEnd
            retireVoices()
        }
    }

    /// Opens every spin that sounds in `[blockStart, blockEnd)` and has no voice yet.
    private func openVoices(blockStart: Int64, blockEnd: Int64) {
        let spins = schedule.spins
        while nextCandidate < spins.count, handled.contains(nextCandidate) { nextCandidate += 1 }
        var index = nextCandidate
        while index < spins.count {
            let spin = spins[index]
            let start = frame(at: spin.airtime)
            if start >= blockEnd { break }
            let length = spin.audioBlock.frames(atRate: mixRate)
            if !handled.contains(index), start + length > blockStart {
                handled.insert(index)
                open(spin, startFrame: start, at: blockStart)
            }
            index += 1
        }
    }

    private func open(_ spin: Spin, startFrame: Int64, at blockStart: Int64) {
        let join = max(0, blockStart - startFrame)
        let heard = date(atFrame: startFrame + join)
        guard voices.count < VoiceSlots.defaultCapacity else {
            report(PlayEvent(time: heard, kind: .error, spin: spin,
                             detail: "too many overlapping spins (at most \(VoiceSlots.defaultCapacity) at once): not played"))
            return
        }
        guard let path = resolveFile(spin) else {
            report(PlayEvent(time: heard, kind: .error, spin: spin, detail: "no audio file for \(spin.audioBlock.downloadURL ?? "(no URL)")"))
            return
        }
        do {
            let decoder = try openAudioFile(path: path)
            let voice = try Voice(spin: spin, file: path, decoder: decoder, mixRate: mixRate, startFrame: startFrame, joinFrame: join)
            voices.append(voice)
            if join == 0 {
                report(PlayEvent(time: heard, kind: .start, spin: spin, detail: ""))
            } else {
                report(PlayEvent(time: heard, kind: .join, spin: spin, detail: "at \(seconds(join)) s into the file"))
            }
        } catch {
            report(PlayEvent(time: heard, kind: .error, spin: spin, detail: "\(error)"))
        }
    }

    private func retireVoices() {
        voices.removeAll { voice in
            guard voice.isExhausted, voice.ring.availableToRead == 0 else { return false }
            let endFrame = voice.startFrame + voice.writeFrame
            let ended = date(atFrame: endFrame)
            if let failure = voice.failure {
                report(PlayEvent(time: ended, kind: .error, spin: voice.spin, detail: "\(failure); silence after \(seconds(voice.writeFrame)) s"))
            } else if let expected = voice.expectedFrames, voice.writeFrame + Int64(mixRate) / 2 < expected {
                report(PlayEvent(time: ended, kind: .error, spin: voice.spin,
                                 detail: "\(voice.file): ended at \(seconds(voice.writeFrame)) s of the \(seconds(expected)) s its header announces (truncated?)"))
            } else {
                let durationFrames = voice.spin.audioBlock.frames(atRate: mixRate)
                let short = voice.writeFrame + Int64(mixRate) / 2 < durationFrames
                report(PlayEvent(time: ended, kind: short ? .error : .end, spin: voice.spin,
                                 detail: short ? "\(voice.file): \(seconds(voice.writeFrame)) s long, the schedule says \(seconds(durationFrames)) s (truncated?)"
                                               : "after \(seconds(voice.writeFrame)) s"))
            }
            return true
        }
    }

    private func seconds(_ frames: Int64) -> String {
        let millis = frames * 1000 / Int64(mixRate)
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
