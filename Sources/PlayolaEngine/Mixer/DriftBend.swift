import Glibc

/// Plays a stream voice's frames a few hundred ppm faster or slower than they arrive, so that a stream whose
/// server clock runs apart from the DAC's neither overflows nor runs dry (`DriftController` sets `step`).
///
/// Each output frame is the input read at a fractional position through a 32-tap Kaiser-windowed sinc
/// (β = 9), its coefficients interpolated between 256 tabulated phases: at 44.1 kHz the error against an
/// ideal delay is below −88 dB through 18 kHz (DriftBendTests). soxr's variable-rate mode did the same
/// and doubled a stream's CPU; this costs about 100 multiply-adds a frame. At a whole-frame position the
/// filter is the identity, so `step == 1` from the start is bit-exact.
package final class DriftBend {
    package static let taps = 32
    static let phases = 256
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
    private let coefficients = UnsafeMutablePointer<Float>.allocate(capacity: DriftBend.taps)

    /// Room for `maxInputFrames` a call at a step down to 0.99.
    package init(maxInputFrames: Int) {
        maxInput = maxInputFrames
        let held = maxInputFrames + Self.taps
        left = .allocate(capacity: held)
        right = .allocate(capacity: held)
        // Silence before the first frame, so the first output frame is the first input frame.
        count = Self.taps / 2 - 1
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
        let before = Self.taps / 2 - 1
        let after = Self.taps / 2
        let step = max(0.99, min(1.01, self.step))
        var produced = 0
        Self.table.withUnsafeBufferPointer { table in
            while produced < outputCapacity {
                let whole = Int(position)
                guard whole + after < count else { break }
                if step == 1 && position == Double(whole) {
                    // No bend (yet): the filter would be the identity.
                    output[2 * produced] = left[whole]
                    output[2 * produced + 1] = right[whole]
                    produced += 1
                    position += 1
                    continue
                }
                let phase = (position - Double(whole)) * Double(Self.phases)
                let row = Int(phase)
                let blend = Float(phase - Double(row))
                let first = row * Self.taps
                for tap in 0..<Self.taps {
                    let a = table[first + tap]
                    coefficients[tap] = a + blend * (table[first + Self.taps + tap] - a)
                }
                var sumLeft: Float = 0
                var sumRight: Float = 0
                let start = whole - before
                for tap in 0..<Self.taps {
                    sumLeft += coefficients[tap] * left[start + tap]
                    sumRight += coefficients[tap] * right[start + tap]
                }
                output[2 * produced] = sumLeft
                output[2 * produced + 1] = sumRight
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

    /// `phases + 1` rows of `taps` coefficients: row p reads the input `p / phases` of a frame past a whole
    /// position; each row sums to 1, so the bend never changes the level.
    static let table: [Float] = {
        let half = Double(taps / 2)
        let beta = 9.0
        var table = [Float](repeating: 0, count: (phases + 1) * taps)
        for row in 0...phases {
            let fraction = Double(row) / Double(phases)
            var weights = [Double](repeating: 0, count: taps)
            for tap in 0..<taps {
                let offset = Double(tap) - (half - 1) - fraction
                let ratio = offset / half
                let window = besselI0(beta * (max(0, 1 - ratio * ratio)).squareRoot()) / besselI0(beta)
                let sinc = offset == 0 ? 1 : sin(Double.pi * offset) / (Double.pi * offset)
                weights[tap] = sinc * window
            }
            let sum = weights.reduce(0, +)
            for tap in 0..<taps { table[row * taps + tap] = Float(weights[tap] / sum) }
        }
        return table
    }()

    /// The modified Bessel function of the first kind, order 0 (the Kaiser window), by its power series.
    private static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        var k = 1.0
        while term > sum * 1e-12 {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
}
