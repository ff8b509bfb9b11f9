import PlayolaDecoding
import PlayolaModel
import Synchronization

/// One spin on the mix timeline: its file's frame 0 heard at `startFrame` (the spin's airtime), played from
/// `joinFrame` under the spin's gain envelope. A frame the mixer comes to late is dropped, never played late.
public final class TimelineVoice {
    public let spin: Spin
    public let envelope: GainEnvelope
    /// The mix frame at which voice frame 0 is heard.
    public let startFrame: Int64
    /// The first voice frame this voice plays (0 unless it joined mid-file).
    public let joinFrame: Int64
    public let pipeline: DecodePipeline
    /// The pipeline's ring, which the mixer reads.
    public let ring: SampleRing
    /// Voice frame of the next frame the mixer reads (render side).
    var readFrame: Int64
    /// Asked by the decode side (the spin left the program): the render side fades the voice out over
    /// 20 ms (`rampGain`) and then reports it silent, so removing a voice never clicks.
    public let fadeOutRequested = Atomic<Bool>(false)
    public let isSilenced = Atomic<Bool>(false)
    /// Render side only: the gain of the 20 ms fade-out ramp.
    var rampGain: Float = 1

    public init(
        spin: Spin, file: String, decoder: any AudioDecoder, mixRate: Int, startFrame: Int64, joinFrame: Int64
    ) throws(AudioDecoderError) {
        self.spin = spin
        envelope = spin.envelope
        self.startFrame = startFrame
        self.joinFrame = max(0, joinFrame)
        pipeline = try DecodePipeline(file: file, decoder: decoder, mixRate: mixRate, joinFrame: self.joinFrame,
                                      ringFrames: 2 * mixRate, clockHold: nil)
        ring = pipeline.ring
        readFrame = self.joinFrame
    }

    public var mixRate: Int { pipeline.mixRate }

    /// Decodes until the ring holds voice frames up to `target` (exclusive), the ring is full, or the file ends.
    public func fill(upTo target: Int64) { pipeline.fill(upTo: target) }

    /// The file ended and the mixer has taken all of it.
    public var isPlayedOut: Bool { pipeline.isExhausted && ring.availableToRead == 0 }
}
