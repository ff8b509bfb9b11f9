import PlayolaDecoding
import Synchronization

/// An internet radio stream on its way to the mix. It is not tied to the mix timeline: its frames arrive at
/// the broadcast's pace, so the mixer plays them as they come from `startFrame` on, ramps in at the start,
/// and when the ring runs dry waits until `rebufferFrames` have arrived again (a jitter buffer). Its frames
/// pass through the pipeline's `FrameStuffer` or `DriftBend` (`ClockHold`), which `holdLevel` keeps at its
/// level.
public final class StreamVoice {
    /// The mix frame from which it sounds. Set by the decode side before the voice is published (it is
    /// placed only once its jitter buffer is full), never after.
    public package(set) var startFrame: Int64 = 0
    public let pipeline: DecodePipeline
    /// The pipeline's ring, which the mixer reads.
    public let ring: SampleRing
    /// A voice that ran dry starts again once its ring holds this many frames.
    public let rebufferFrames: Int
    /// Asked by the decode side (the stream was replaced or failed): the render side fades the voice out
    /// over 20 ms and then reports it silent.
    public let fadeOutRequested = Atomic<Bool>(false)
    public let isSilenced = Atomic<Bool>(false)
    /// Render side only: the gain of the 20 ms ramp, rising to 1 as the voice starts or recovers from
    /// running dry, falling to 0 on a fade-out.
    var rampGain: Float = 0
    /// Render side only: ran dry, waiting for `rebufferFrames`.
    var isRebuffering = false
    /// Render side: counts the recoveries from running dry (the buffer is at a new level).
    public let recoveries = Atomic<Int>(0)
    /// Decode side: the loop that holds the buffer against the two clocks' drift.
    public private(set) var drift: DriftController
    private var recoveriesSeen = 0

    public init(
        url: String, decoder: any StreamDecoder, mixRate: Int, ringSeconds: Double, rebufferSeconds: Double,
        drift: DriftController.Tuning = .init(), clockHold: ClockHold = .stuff
    ) throws(AudioDecoderError) {
        pipeline = try DecodePipeline(file: url, decoder: decoder, mixRate: mixRate, joinFrame: 0,
                                      ringFrames: Int(Double(mixRate) * ringSeconds), clockHold: clockHold)
        ring = pipeline.ring
        rebufferFrames = min(ring.capacity, Int(Double(mixRate) * rebufferSeconds))
        self.drift = DriftController(tuning: drift)
    }

    public var mixRate: Int { pipeline.mixRate }

    /// Decodes whatever has arrived, as far as the ring holds.
    public func fill() { pipeline.fill(upTo: .max) }

    /// The stream ended and the mixer has taken all of it.
    public var isPlayedOut: Bool { pipeline.isExhausted && ring.availableToRead == 0 }

    /// Decode side, a sounding voice, just after `fill`: one reading of its buffer for the drift loop, which
    /// sets how fast the next frames are played. `time`: monotonic seconds.
    public func holdLevel(at time: Double) {
        let recovered = recoveries.load(ordering: .acquiring)
        if recovered != recoveriesSeen {
            recoveriesSeen = recovered
            drift.resettle()
        }
        let frames = ring.availableToRead + pipeline.pendingFrames
        pipeline.correction = drift.update(level: Double(frames) / Double(mixRate), at: time)
    }
}
