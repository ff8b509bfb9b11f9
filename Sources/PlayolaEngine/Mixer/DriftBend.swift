import Glibc

/// Plays a stream voice's frames a few hundred ppm faster or slower than they arrive, so that a stream whose
/// server clock runs apart from the DAC's neither overflows nor runs dry (`DriftController` sets `step`):
/// `[player] clock_hold = resample`, where `FrameStuffer` is the default.
///
/// Each output frame is the input read at a fractional position through `FractionalDelay` (error below
/// −88 dB through 18 kHz at 44.1 kHz). soxr's variable-rate mode did the same and doubled a stream's CPU;
/// this costs about 100 multiply-adds a frame. At a whole-frame position the filter is the identity, so
/// `step == 1` from the start is bit-exact.
package final class DriftBend {
    /// Input frames per output frame: above 1 plays faster (a server that sends too much).
    package var step = 1.0
    /// The frames the last `process` made, interleaved stereo.
    package let output: UnsafeMutablePointer<Float>
    let outputCapacity: Int

    private let maxInput: Int
    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>
    /// Input frames held (the filter's history, then what is new).
    private var count: Int
    /// Where in the held input the next output frame is read.
    private var position: Double
    private let coefficients = UnsafeMutablePointer<Float>.allocate(capacity: FractionalDelay.taps)

    /// Room for `maxInputFrames` a call at a step down to 0.99.
    package init(maxInputFrames: Int) {
        maxInput = maxInputFrames
        let held = maxInputFrames + FractionalDelay.taps
        left = .allocate(capacity: held)
        right = .allocate(capacity: held)
        // Silence before the first frame, so the first output frame is the first input frame.
        count = FractionalDelay.before
        left.initialize(repeating: 0, count: held)
        right.initialize(repeating: 0, count: held)
        position = Double(count)
        outputCapacity = Int(Double(held) / 0.99) + 1
        output = .allocate(capacity: outputCapacity * 2)
    }

    deinit {
        left.deallocate()
        right.deallocate()
        output.deallocate()
        coefficients.deallocate()
    }

    /// Takes `frames` (at most `maxInputFrames`) interleaved stereo frames; returns how many output frames
    /// are in `output`. The last 16 input frames wait for the ones after them.
    package func process(_ input: UnsafePointer<Float>, frames: Int) -> Int {
        let frames = min(frames, maxInput)
        for index in 0..<frames {
            left[count + index] = input[2 * index]
            right[count + index] = input[2 * index + 1]
        }
        count += frames
        let before = FractionalDelay.before
        let step = max(0.99, min(1.01, self.step))
        var produced = 0
        FractionalDelay.table.withUnsafeBufferPointer { table in
            while produced < outputCapacity {
                let whole = Int(position)
                guard whole + FractionalDelay.after < count else { break }
                if step == 1 && position == Double(whole) {
                    // No bend (yet): the filter would be the identity.
                    output[2 * produced] = left[whole]
                    output[2 * produced + 1] = right[whole]
                    produced += 1
                    position += 1
                    continue
                }
                FractionalDelay.coefficients(fraction: position - Double(whole), table: table, into: coefficients)
                let start = whole - before
                let frame = FractionalDelay.apply(coefficients, left: left + start, right: right + start, stride: 1)
                output[2 * produced] = frame.left
                output[2 * produced + 1] = frame.right
                produced += 1
                position += step
            }
        }
        // Keep only what the next output frames still read.
        let drop = min(count, max(0, Int(position) - before))
        if drop > 0 {
            memmove(left, left + drop, (count - drop) * MemoryLayout<Float>.size)
            memmove(right, right + drop, (count - drop) * MemoryLayout<Float>.size)
            count -= drop
            position -= Double(drop)
        }
        return produced
    }
}
