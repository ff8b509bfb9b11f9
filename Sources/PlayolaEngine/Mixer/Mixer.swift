
/// Sums the voices of one block, each under its gain envelope, and limits the sum to [-1, 1].
///
/// Real-time safe: it reads rings and preallocated memory only — no decoding, allocation, locks or logs.
/// A voice with nothing in its ring is silence; a voice that fell behind the block skips to it. A live
/// voice (a stream) plays what has arrived from where it is, and after running dry waits to refill.
public enum Mixer {
    /// Mixes `frames` frames starting at mix frame `blockStart` into `output` (interleaved stereo).
    public static func mix(
        _ voices: [Voice], blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>
    ) {
        output.update(repeating: 0, count: frames * 2)
        for voice in voices { add(voice, blockStart: blockStart, frames: frames, into: output) }
        limit(output, count: frames * 2)
    }

    /// The same over a slot table, for the live render thread.
    public static func mix(
        _ slots: VoiceSlots, blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>
    ) {
        output.update(repeating: 0, count: frames * 2)
        slots.forEachActive { add($0, blockStart: blockStart, frames: frames, into: output) }
        limit(output, count: frames * 2)
    }

    @inline(__always)
    static func limit(_ samples: UnsafeMutablePointer<Float>, count: Int) {
        for index in 0..<count { samples[index] = min(1, max(-1, samples[index])) }
    }

    @inline(__always)
    static func add(_ voice: Voice, blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>) {
        if voice.isSilenced.load(ordering: .relaxed) { return }
        let blockOffset: Int
        /// Where, in the frames this block takes, a live voice running dry starts fading out; by how much a frame.
        var dryFadeStart = Int.max
        var dryFadeStep: Float = 0
        if voice.isLive {
            blockOffset = Int(max(0, min(Int64(frames), voice.startFrame - blockStart)))
            if voice.isRebuffering {
                guard voice.ring.availableToRead >= voice.rebufferFrames else {
                    // Nothing sounds, so a fade-out has nothing to ramp.
                    if voice.fadeOutRequested.load(ordering: .acquiring) { voice.isSilenced.store(true, ordering: .releasing) }
                    return
                }
                voice.isRebuffering = false
                voice.recoveries.add(1, ordering: .releasing)
                voice.rampGain = 0 // ramps in again
            }
            // Running dry within this block: play what is there, fading out over its last 5 ms (a wave cut
            // mid-swing is a click), then wait for the buffer to refill.
            let available = voice.ring.availableToRead
            if available < frames - blockOffset {
                voice.isRebuffering = true
                let fadeFrames = max(1, min(available, voice.mixRate / 200))
                dryFadeStart = available - fadeFrames
                dryFadeStep = voice.rampGain / Float(fadeFrames)
            }
        } else {
            let firstVoiceFrame = blockStart - voice.startFrame
            // Never backfill: a voice behind the block drops what it is late by.
            if voice.readFrame < firstVoiceFrame {
                voice.readFrame += Int64(voice.ring.skip(frames: Int(firstVoiceFrame - voice.readFrame)))
            }
            blockOffset = Int(max(0, voice.readFrame - firstVoiceFrame))
            // Asked to leave before its first frame sounds (a spin placed ahead, then a stop or a station
            // change): nothing was heard, so nothing ramps down. Without this it played 20 ms of itself, full
            // level, when its airtime came (the image test heard the tone return 1.16 s after a stop).
            if blockOffset > 0, voice.fadeOutRequested.load(ordering: .acquiring) {
                voice.isSilenced.store(true, ordering: .releasing)
                return
            }
        }
        guard blockOffset < frames else { return }
        let envelope = voice.envelope
        let framesPerMS = Double(voice.mixRate) / 1000
        // A voice leaving the program fades out over 20 ms, so a stop or a station change never clicks; a
        // live voice ramps in over the same 20 ms.
        let fading = voice.fadeOutRequested.load(ordering: .acquiring)
        let rampTarget: Float = fading ? 0 : 1
        var rampGain = voice.rampGain
        let ramping = rampGain != rampTarget
        let rampStep = 1 / (Float(voice.mixRate) * 0.02)
        var voiceFrame = voice.readFrame
        let consumed = voice.ring.consume(frames: frames - blockOffset) { source, count, offset in
            var done = 0
            while done < count {
                // One linear piece of the envelope at a time: gain(frame) = base + slope * (frame - anchor),
                // a pure function of the voice frame in Double, so a render joined mid-ramp is bit-identical
                // to one that played through it.
                let ms = Double(voiceFrame) / framesPerMS
                let segment = envelope.segmentIndex(atMS: ms)
                let a = envelope.points[segment]
                var run = count - done
                var slope = 0.0
                let anchor = a.ms * framesPerMS
                if segment + 1 < envelope.points.count {
                    let b = envelope.points[segment + 1]
                    let endFrame = Int64((b.ms * framesPerMS).rounded(.up))
                    run = max(1, min(run, Int(endFrame - voiceFrame)))
                    slope = Double(b.gain - a.gain) / ((b.ms - a.ms) * framesPerMS)
                }
                let base = Double(a.gain)
                let out = output + (blockOffset + offset + done) * 2
                let input = source + done * 2
                let position = offset + done
                if position < dryFadeStart { run = min(run, dryFadeStart - position) }
                let dryFading = position >= dryFadeStart
                if ramping || dryFading {
                    let first = Double(voiceFrame) - anchor
                    for k in 0..<run {
                        let gain = Float(base + slope * (first + Double(k))) * rampGain
                        if dryFading {
                            rampGain = max(0, rampGain - dryFadeStep)
                        } else {
                            rampGain = fading ? max(0, rampGain - rampStep) : min(1, rampGain + rampStep)
                        }
                        out[2 * k] += input[2 * k] * gain
                        out[2 * k + 1] += input[2 * k + 1] * gain
                    }
                } else if slope == 0 {
                    let gain = Float(base)
                    for k in 0..<run {
                        out[2 * k] += input[2 * k] * gain
                        out[2 * k + 1] += input[2 * k + 1] * gain
                    }
                } else {
                    let first = Double(voiceFrame) - anchor
                    for k in 0..<run {
                        let gain = Float(base + slope * (first + Double(k)))
                        out[2 * k] += input[2 * k] * gain
                        out[2 * k + 1] += input[2 * k + 1] * gain
                    }
                }
                done += run
                voiceFrame += Int64(run)
            }
        }
        voice.readFrame += Int64(consumed)
        if ramping || dryFadeStart != Int.max {
            voice.rampGain = rampGain
            if fading && rampGain == 0 { voice.isSilenced.store(true, ordering: .releasing) }
        }
    }
}
