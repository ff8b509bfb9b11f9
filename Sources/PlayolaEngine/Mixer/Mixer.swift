/// Sums the voices of one block and limits the sum to [-1, 1]: spins on the timeline under their gain
/// envelopes (`Mixer+Timeline`), streams as they arrive (`Mixer+Stream`).
///
/// Real-time safe: it reads rings and preallocated memory only — no decoding, allocation, locks or logs.
public enum Mixer {
    /// Mixes `frames` frames starting at mix frame `blockStart` into `output` (interleaved stereo).
    public static func mix(
        _ voices: [TimelineVoice], blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>
    ) {
        block(output, frames: frames) { for voice in voices { add(voice, blockStart: blockStart, frames: frames, into: output) } }
    }

    public static func mix(
        _ voices: [StreamVoice], blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>
    ) {
        block(output, frames: frames) { for voice in voices { add(voice, blockStart: blockStart, frames: frames, into: output) } }
    }

    /// The same over a slot table, on the render thread.
    public static func mix(
        _ slots: VoiceSlots, blockStart: Int64, frames: Int, into output: UnsafeMutablePointer<Float>
    ) {
        block(output, frames: frames) {
            slots.forEachActive(
                timeline: { add($0, blockStart: blockStart, frames: frames, into: output) },
                stream: { add($0, blockStart: blockStart, frames: frames, into: output) })
        }
    }

    /// Silence, the voices `sum` adds, then the limit.
    @inline(__always)
    private static func block(_ output: UnsafeMutablePointer<Float>, frames: Int, _ sum: () -> Void) {
        output.update(repeating: 0, count: frames * 2)
        sum()
        for index in 0..<frames * 2 { output[index] = min(1, max(-1, output[index])) }
    }

    /// Adds `frames` stereo frames of `input` to `output` at one gain.
    @inline(__always)
    static func addScaled(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frames: Int, gain: Float) {
        for k in 0..<frames {
            output[2 * k] += input[2 * k] * gain
            output[2 * k + 1] += input[2 * k + 1] * gain
        }
    }

    /// Frames in the 20 ms ramp by which a voice fades in or out, so that nothing starts or stops with a click.
    @inline(__always)
    static func rampStep(mixRate: Int) -> Float { 1 / (Float(mixRate) * 0.02) }
}
