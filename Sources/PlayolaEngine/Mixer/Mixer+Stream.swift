/// A stream's voice in the mix: what has arrived, from where it is, at its own pace.
extension Mixer {
    /// Ramps in as it starts; after running dry it waits until its ring has refilled, then ramps in again.
    @inline(__always)
    static func add(_ voice: StreamVoice, blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>) {
        if voice.isSilenced.load(ordering: .relaxed) { return }
        let blockOffset = Int(max(0, min(Int64(frames), voice.startFrame - blockStart)))
        if voice.isRebuffering {
            guard voice.ring.availableToRead >= voice.rebufferFrames else {
                // Nothing sounds, so a fade-out has nothing to ramp.
                if voice.fadeOutRequested.load(ordering: .acquiring) { voice.isSilenced.store(true, ordering: .releasing) }
                return
            }
            voice.isRebuffering = false
            voice.recoveries.add(1, ordering: .releasing)
            voice.rampGain = 0
        }
        // Running dry within this block: play what is there, fading out over its last 5 ms (a wave cut
        // mid-swing is a click), then wait for the buffer to refill.
        var dryFadeStart = Int.max
        var dryFadeStep: Float = 0
        let available = voice.ring.availableToRead
        if available < frames - blockOffset {
            voice.isRebuffering = true
            let fadeFrames = max(1, min(available, voice.mixRate / 200))
            dryFadeStart = available - fadeFrames
            dryFadeStep = voice.rampGain / Float(fadeFrames)
        }
        guard blockOffset < frames else { return }
        let fading = voice.fadeOutRequested.load(ordering: .acquiring)
        var rampGain = voice.rampGain
        let ramping = rampGain != (fading ? 0 : 1)
        let rampStep = rampStep(mixRate: voice.mixRate)
        _ = voice.ring.consume(frames: frames - blockOffset) { source, count, offset in
            var done = 0
            while done < count {
                let position = offset + done
                let dryFading = position >= dryFadeStart
                let run = dryFading ? count - done : min(count - done, dryFadeStart - position)
                let out = output + (blockOffset + position) * 2
                let input = source + done * 2
                if ramping || dryFading {
                    for k in 0..<run {
                        let gain = rampGain
                        if dryFading {
                            rampGain = max(0, rampGain - dryFadeStep)
                        } else {
                            rampGain = fading ? max(0, rampGain - rampStep) : min(1, rampGain + rampStep)
                        }
                        out[2 * k] += input[2 * k] * gain
                        out[2 * k + 1] += input[2 * k + 1] * gain
                    }
                } else {
                    addScaled(input, into: out, frames: run, gain: 1)
                }
                done += run
            }
        }
        if ramping || dryFadeStart != Int.max {
            voice.rampGain = rampGain
            if fading && rampGain == 0 { voice.isSilenced.store(true, ordering: .releasing) }
        }
    }
}
