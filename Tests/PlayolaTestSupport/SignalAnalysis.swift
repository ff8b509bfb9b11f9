import Foundation

/// Measurements on rendered audio: the amplitude of one tone over time, onsets, clicks, silence.
package struct SignalAnalysis {
    let samples: [Float]
    let rate: Double

    package init(samples: [Float], rate: Double) {
        self.samples = samples
        self.rate = rate
    }

    /// Samples per analysis window: 10 ms, so tones on multiples of 100 Hz are orthogonal over it.
    package var window: Int { Int(rate / 100) }

    /// Amplitude of the `frequency` tone over the window `[start, start + window)`.
    package func amplitude(of frequency: Double, windowStart start: Int, length: Int? = nil) -> Double {
        let count = length ?? window
        guard start >= 0, start + count <= samples.count else { return 0 }
        let omega = 2 * Double.pi * frequency / rate
        var re = 0.0
        var im = 0.0
        for n in 0..<count {
            let value = Double(samples[start + n])
            let phase = omega * Double(start + n)
            re += value * cos(phase)
            im -= value * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(count)
    }

    /// Amplitude of the tone in the window centred on `frame`.
    package func amplitude(of frequency: Double, around frame: Int) -> Double {
        amplitude(of: frequency, windowStart: frame - window / 2)
    }

    /// Where a tone of steady amplitude `level` begins near `expected` (frames): the window's
    /// amplitude rises linearly from the onset, so it crosses half the level half a window later.
    /// `fadeIn` is the content's own linear fade-in, whose midpoint is where the energy "starts".
    package func onset(of frequency: Double, near expected: Int, level: Double, fadeIn: Double = 0.002) -> Double? {
        let span = Int(rate * 0.05)
        var previous = amplitude(of: frequency, windowStart: expected - span - window)
        for end in (expected - span)...(expected + span) {
            let current = amplitude(of: frequency, windowStart: end - window)
            if previous < level / 2, current >= level / 2 {
                let fraction = (level / 2 - previous) / (current - previous)
                let crossing = Double(end - 1) + fraction
                return crossing - Double(window) / 2 - fadeIn * rate / 2
            }
            previous = current
        }
        return nil
    }

    /// The largest third difference: a sum of tones below ~2 kHz keeps it tiny; a step of size s makes 2s.
    package func largestThirdDifference(in range: Range<Int>? = nil) -> (value: Float, at: Int) {
        let bounds = range ?? 0..<samples.count
        var largest: Float = 0
        var position = 0
        for n in max(bounds.lowerBound, 3)..<bounds.upperBound {
            let d3 = abs(samples[n] - 3 * samples[n - 1] + 3 * samples[n - 2] - samples[n - 3])
            if d3 > largest {
                largest = d3
                position = n
            }
        }
        return (largest, position)
    }

    /// RMS of `[start, start + count)`.
    package func rms(from start: Int, count: Int) -> Double {
        var sum = 0.0
        for n in start..<min(samples.count, start + count) { sum += Double(samples[n]) * Double(samples[n]) }
        return (sum / Double(count)).squareRoot()
    }
}

package func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }
