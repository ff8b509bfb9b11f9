import PlayolaDecoding
import PlayolaModel
import Synchronization

/// One spin on its way to the mix: its decoder (and resampler), positioned at the join point, filling
/// a ring of stereo frames at the mix rate, and the gain envelope the mixer applies.
///
/// Positions are "voice frames": frames at the mix rate counted from the file's first sample, which is
/// heard at the spin's airtime.
///
/// A live voice (an internet radio stream, whose decoder is a `StreamDecoder`) is not tied to the mix
/// timeline: its frames arrive at the broadcast's pace, so the mixer plays them as they come, ramps in at
/// the start, and when the ring runs dry waits until `rebufferFrames` have arrived again (a jitter buffer).
/// Its frames pass through a `DriftBend` on their way to the ring, which `holdLevel` keeps at its level.
public final class Voice {
    public let spin: Spin
    /// The audio file, for messages.
    public let file: String
    public let envelope: GainEnvelope
    public let mixRate: Int
    /// The mix frame at which voice frame 0 is heard. Set by the decode side before the voice is published
    /// (a live voice is placed only once its jitter buffer is full), never after.
    public package(set) var startFrame: Int64
    /// The first voice frame this voice plays (0 unless it joined mid-file).
    public let joinFrame: Int64
    public let ring: SampleRing
    /// The file's length in voice frames when the decoder knows it.
    public let expectedFrames: Int64?
    /// Played as it arrives rather than at its airtime (a stream).
    public let isLive: Bool
    /// A live voice that ran dry starts again once its ring holds this many frames.
    public let rebufferFrames: Int

    /// Voice frame of the next frame the ring receives (decode side).
    public private(set) var writeFrame: Int64
    /// Voice frame of the next frame the mixer reads (render side).
    var readFrame: Int64
    /// The decoder reached the end (or failed) and everything it produced is in the ring.
    public private(set) var isExhausted = false
    /// Asked by the decode side (the spin left the program): the render side fades the voice out over
    /// 20 ms (`rampGain`) and then reports it silent, so removing a voice never clicks.
    public let fadeOutRequested = Atomic<Bool>(false)
    public let isSilenced = Atomic<Bool>(false)
    /// Render side only: the gain of the 20 ms ramp, falling to 0 on a fade-out, rising to 1 as a live
    /// voice starts or recovers from running dry.
    var rampGain: Float = 1
    /// Render side only: a live voice that ran dry, waiting for `rebufferFrames`.
    var isRebuffering = false
    public private(set) var failure: AudioDecoderError?
    /// Render side: counts a live voice's recoveries from running dry (its buffer is at a new level).
    public let recoveries = Atomic<Int>(0)
    /// Decode side, live voices: the loop that holds the buffer against the two clocks' drift.
    public private(set) var drift: DriftController

    private let decoder: any AudioDecoder
    private let stream: (any StreamDecoder)?
    private let resampler: Resampler?
    /// Resampled frames still to drop before `joinFrame` (a join starts on the resampler's grid).
    private var discard: Int64
    private let chunkFrames = 1024
    private let decoded: UnsafeMutablePointer<Float>
    private let stereo: UnsafeMutablePointer<Float>
    private let resampled: UnsafeMutablePointer<Float>
    private let resampledCapacity: Int
    /// Decoded stereo frames not yet given to the resampler.
    private var inputOffset = 0
    private var inputCount = 0
    /// Mix-rate frames ready for the ring: `stereo` when the rates match, else `resampled`.
    private var ready: UnsafeMutablePointer<Float>
    private var readyOffset = 0
    private var readyCount = 0
    private var decoderDone = false
    private let bend: DriftBend?
    private var recoveriesSeen = 0

    /// Output frames a resampled join starts early by, so that the filter has settled at `joinFrame`.
    static let resamplerPreroll: Int64 = 4096

    public init(
        spin: Spin, file: String, decoder: any AudioDecoder, mixRate: Int, startFrame: Int64, joinFrame: Int64,
        ringSeconds: Double = 2, rebufferSeconds: Double = 2, drift: DriftController.Tuning = .init()
    ) throws(AudioDecoderError) {
        self.spin = spin
        self.file = file
        self.envelope = spin.envelope
        self.mixRate = mixRate
        self.startFrame = startFrame
        self.joinFrame = max(0, joinFrame)
        // The buffers below are sized by these, so a stream decoder's (or any decoder's) format is held to the
        // same limits as a file header's, even if a decoder let it through.
        try DecodeLimits.checkFormat(rate: decoder.sampleRate, channels: decoder.channelCount, path: file)
        self.decoder = decoder
        stream = decoder as? any StreamDecoder
        isLive = stream != nil
        rampGain = isLive ? 0 : 1
        ring = SampleRing(capacityFrames: Int(Double(mixRate) * ringSeconds))
        rebufferFrames = min(ring.capacity, Int(Double(mixRate) * rebufferSeconds))
        // A header's frame count is only a claim: one too large to scale is no expectation at all.
        expectedFrames = decoder.frameCount.flatMap { frames in
            let (scaled, overflow) = frames.multipliedReportingOverflow(by: Int64(mixRate))
            return overflow || frames < 0 ? nil : scaled / Int64(decoder.sampleRate)
        }
        decoded = .allocate(capacity: chunkFrames * max(2, decoder.channelCount))
        stereo = .allocate(capacity: chunkFrames * 2)
        if decoder.sampleRate == mixRate {
            resampler = nil
            resampledCapacity = 0
            discard = 0
            try decoder.seek(toFrame: self.joinFrame)
        } else {
            let resampler = try Resampler(from: decoder.sampleRate, to: mixRate)
            self.resampler = resampler
            let grid = max(0, (self.joinFrame - Self.resamplerPreroll) / resampler.gridOutput)
            discard = self.joinFrame - grid * resampler.gridOutput
            resampledCapacity = 4 * (chunkFrames * mixRate / decoder.sampleRate + 64)
            try decoder.seek(toFrame: grid * resampler.gridInput)
        }
        resampled = .allocate(capacity: max(1, resampledCapacity) * 2)
        bend = isLive ? DriftBend(maxInputFrames: max(chunkFrames, resampledCapacity)) : nil
        self.drift = DriftController(tuning: drift)
        ready = stereo
        writeFrame = self.joinFrame
        readFrame = self.joinFrame
    }

    deinit {
        decoded.deallocate()
        stereo.deallocate()
        resampled.deallocate()
    }

    /// Decodes until the ring holds frames up to voice frame `target` (exclusive), the ring is full, or
    /// the file ends. Runs on the decode side: a worker live, the render loop in virtual time.
    public func fill(upTo target: Int64) {
        while !isExhausted, writeFrame < target, ring.availableToWrite > 0 {
            if readyOffset < readyCount {
                let count = min(readyCount - readyOffset, Int(target - writeFrame), ring.availableToWrite)
                ring.write(ready + readyOffset * 2, frames: count)
                readyOffset += count
                writeFrame += Int64(count)
            } else if !produce() {
                break // a live stream has nothing more yet
            }
        }
    }

    /// Makes the next stretch of mix-rate frames ready: decodes a chunk when the last is used up, and
    /// passes it through the resampler (flushing it at the end), dropping the join preroll.
    /// False when a live stream has nothing new: the caller tries again later.
    private func produce() -> Bool {
        if inputCount == 0 && !decoderDone {
            var frames = 0
            do {
                // Stereo files decode straight into `stereo`: one copy fewer per sample.
                frames = try decoder.read(into: decoder.channelCount == 2 ? stereo : decoded, maxFrames: chunkFrames)
            } catch {
                failure = error
            }
            if frames == 0, failure == nil, let stream, !stream.hasEnded { return false }
            decoderDone = frames == 0
            toStereo(frames)
            inputOffset = 0
            inputCount = frames
        }
        readyOffset = 0
        readyCount = 0
        guard let resampler else {
            ready = stereo
            readyCount = inputCount
            inputCount = 0
            isExhausted = decoderDone
            bendLive()
            return true
        }
        ready = resampled
        let result = resampler.process(
            inputCount > 0 ? stereo + inputOffset * 2 : nil, inputFrames: inputCount,
            into: resampled, maxOutput: resampledCapacity)
        inputOffset += result.consumed
        inputCount -= result.consumed
        readyCount = result.produced
        if result.consumed == 0 && result.produced == 0 && (decoderDone || inputCount > 0) {
            isExhausted = true // flushed (or a resampler that makes no progress: end rather than spin)
        }
        let drop = Int(min(Int64(readyCount), discard))
        discard -= Int64(drop)
        readyOffset = drop
        bendLive()
        return true
    }

    /// A live voice's ready frames go through its bend.
    private func bendLive() {
        guard let bend, readyCount > readyOffset else { return }
        readyCount = bend.process(ready + readyOffset * 2, frames: readyCount - readyOffset)
        ready = bend.output
        readyOffset = 0
    }

    /// Decode side, a sounding live voice, just after `fill`: one reading of its buffer for the drift loop,
    /// which sets how fast the next frames are played. `time`: monotonic seconds.
    public func holdLevel(at time: Double) {
        guard let bend else { return }
        let recovered = recoveries.load(ordering: .acquiring)
        if recovered != recoveriesSeen {
            recoveriesSeen = recovered
            drift.resettle()
        }
        let frames = ring.availableToRead + readyCount - readyOffset
        bend.step = 1 + drift.update(level: Double(frames) / Double(mixRate), at: time)
    }

    private func toStereo(_ frames: Int) {
        switch decoder.channelCount {
        case 2:
            break // decoded in place
        case 1:
            for index in 0..<frames {
                stereo[2 * index] = decoded[index]
                stereo[2 * index + 1] = decoded[index]
            }
        default:
            let channels = decoder.channelCount
            for index in 0..<frames {
                stereo[2 * index] = decoded[channels * index]
                stereo[2 * index + 1] = decoded[channels * index + 1]
            }
        }
    }
}
