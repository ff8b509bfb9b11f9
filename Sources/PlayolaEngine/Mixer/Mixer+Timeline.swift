/// A spin's voice in the mix: at its place on the timeline, under its gain envelope.
extension Mixer {
    /// A voice with nothing in its ring is silence; a voice that fell behind the block skips to it.
    @inline(__always)
    static func add(_ voice: TimelineVoice, blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>) {
        if voice.isSilenced.load(ordering: .relaxed) { return }
        let firstVoiceFrame = blockStart - voice.startFrame
        // Never backfill: a voice behind the block drops what it is late by.
        if voice.readFrame < firstVoiceFrame {
            voice.readFrame += Int64(voice.ring.skip(frames: Int(firstVoiceFrame - voice.readFrame)))
        }
        let blockOffset = Int(max(0, voice.readFrame - firstVoiceFrame))
        // Asked to leave before its first frame sounds (a spin placed ahead, then a stop or a station
        // change): nothing was heard, so nothing ramps down. Without this it played 20 ms of itself, full
        // level, when its airtime came (the image test heard the tone return 1.16 s after a stop).
        if blockOffset > 0, voice.fadeOutRequested.load(ordering: .acquiring) {
            voice.isSilenced.store(true, ordering: .releasing)
            return
        }
        guard blockOffset < frames else { return }
        let envelope = voice.envelope
        let framesPerMS = Double(voice.mixRate) / 1000
        // A voice leaving the program fades out over 20 ms, so a stop or a station change never clicks.
        let fading = voice.fadeOutRequested.load(ordering: .acquiring)
        var rampGain = voice.rampGain
        let ramping = fading && rampGain != 0
        let rampStep = rampStep(mixRate: voice.mixRate)
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
                if ramping {
                    let first = Double(voiceFrame) - anchor
                    for k in 0..<run {
                        let gain = Float(base + slope * (first + Double(k))) * rampGain
                        rampGain = max(0, rampGain - rampStep)
                        out[2 * k] += input[2 * k] * gain
                        out[2 * k + 1] += input[2 * k + 1] * gain
                    }
                } else if slope == 0 {
                    addScaled(input, into: out, frames: run, gain: Float(base))
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
        if ramping {
            voice.rampGain = rampGain
            if rampGain == 0 { voice.isSilenced.store(true, ordering: .releasing) }
        }
    }
}
