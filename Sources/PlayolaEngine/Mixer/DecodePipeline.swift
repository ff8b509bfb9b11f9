import PlayolaDecoding

/// What every voice shares: its decoder (and resampler), positioned at the join point, filling a ring of
/// stereo frames at the mix rate, through a `DriftFollower` for a stream held against its server's clock
/// (`ClockHold`). Runs on the decode side only: the render thread reads the ring.
///
/// Positions are "voice frames": frames at the mix rate counted from the decoder's first sample.
public final class DecodePipeline {
    /// The audio file or stream, for messages.
    public let file: String
    public let mixRate: Int
    public let ring: SampleRing
    /// The decoder's length in voice frames when it knows it.
    public let expectedFrames: Int64?
    /// Voice frame of the next frame the ring receives.
    public private(set) var writeFrame: Int64
    /// The decoder reached the end (or failed) and everything it produced is in the ring.
    public private(set) var isExhausted = false
    public private(set) var failure: AudioDecoderError?

    private let decoder: any AudioDecoder
    /// Set for a stream's decoder, whose "nothing yet" is not its end.
    private let stream: (any StreamDecoder)?
    private let resampler: Resampler?
    /// Resampled frames still to drop before the join (a join starts on the resampler's grid).
    private var discard: Int64
    private let chunkFrames = 1024
    private let decoded: UnsafeMutablePointer<Float>
    private let stereo: UnsafeMutablePointer<Float>
    private let resampled: UnsafeMutablePointer<Float>
    private let resampledCapacity: Int
    /// Decoded stereo frames not yet given to the resampler.
    private var inputOffset = 0
    private var inputCount = 0
    /// Mix-rate frames ready for the ring: `stereo` when the rates match, else `resampled`, else the follower's.
    private var ready: UnsafeMutablePointer<Float>
    private var readyOffset = 0
    private var readyCount = 0
    private var decoderDone = false
    /// A stream's: how it follows its drift loop's correction.
    private let follower: (any DriftFollower)?

    /// Output frames a resampled join starts early by, so that the filter has settled at the join.
    static let resamplerPreroll: Int64 = 4096

    public init(
        file: String, decoder: any AudioDecoder, mixRate: Int, joinFrame: Int64, ringFrames: Int,
        clockHold: ClockHold?
    ) throws(AudioDecoderError) {
        self.file = file
        self.mixRate = mixRate
        // The buffers below are sized by these, so a stream decoder's (or any decoder's) format is held to the
        // same limits as a file header's, even if a decoder let it through.
        try DecodeLimits.checkFormat(rate: decoder.sampleRate, channels: decoder.channelCount, path: file)
        self.decoder = decoder
        stream = decoder as? any StreamDecoder
        ring = SampleRing(capacityFrames: ringFrames)
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
            try decoder.seek(toFrame: joinFrame)
        } else {
            let resampler = try Resampler(from: decoder.sampleRate, to: mixRate)
            self.resampler = resampler
            let grid = max(0, (joinFrame - Self.resamplerPreroll) / resampler.gridOutput)
            discard = joinFrame - grid * resampler.gridOutput
            resampledCapacity = 4 * (chunkFrames * mixRate / decoder.sampleRate + 64)
            try decoder.seek(toFrame: grid * resampler.gridInput)
        }
        resampled = .allocate(capacity: max(1, resampledCapacity) * 2)
        follower = clockHold?.makeFollower(maxInputFrames: max(chunkFrames, resampledCapacity))
        ready = stereo
        writeFrame = joinFrame
    }

    deinit {
        decoded.deallocate()
        stereo.deallocate()
        resampled.deallocate()
    }

    /// Input frames per output frame, minus 1 (0 without a clock hold): positive plays faster than 1:1.
    var correction: Double {
        get { follower?.correction ?? 0 }
        set { follower?.correction = newValue }
    }

    /// Frames made and not yet in the ring.
    var pendingFrames: Int { readyCount - readyOffset }

    /// Decodes until the ring holds frames up to voice frame `target` (exclusive), the ring is full, or
    /// the decoder ends (or, a stream's, has nothing more yet). A worker's in real time, the renderer's own
    /// loop in virtual time.
    public func fill(upTo target: Int64) {
        while !isExhausted, writeFrame < target, ring.availableToWrite > 0 {
            if readyOffset < readyCount {
                let count = min(readyCount - readyOffset, Int(target - writeFrame), ring.availableToWrite)
                ring.write(ready + readyOffset * 2, frames: count)
                readyOffset += count
                writeFrame += Int64(count)
            } else if !produce() {
                break // a stream has nothing more yet
            }
        }
    }

    /// Makes the next stretch of mix-rate frames ready: decodes a chunk when the last is used up, and
    /// passes it through the resampler (flushing it at the end), dropping the join preroll.
    /// False when a stream has nothing new: the caller tries again later.
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
            followDrift()
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
        followDrift()
        return true
    }

    /// The ready frames go through the drift follower, if there is one; at the end, what it still holds
    /// is ready (and the pipeline is exhausted only once that is in the ring too).
    private func followDrift() {
        guard let follower else { return }
        if readyCount > readyOffset {
            readyCount = follower.process(ready + readyOffset * 2, frames: readyCount - readyOffset)
        } else if isExhausted {
            readyCount = follower.flush()
            isExhausted = readyCount == 0
        } else {
            return
        }
        ready = follower.output
        readyOffset = 0
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
