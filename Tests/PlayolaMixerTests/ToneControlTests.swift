import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Bass and treble as measured on sines through the filters: the gain each setting promises at 50 Hz and
/// 10 kHz, 1 kHz left alone, flat untouched, and a change while playing without a click.
final class ToneControlTests: XCTestCase {
    /// `seconds` of a stereo sine of `frequency`, amplitude 0.25.
    func sine(_ frequency: Double, seconds: Double, rate: Int) -> [Float] {
        (0..<Int(seconds * Double(rate))).flatMap { frame in
            let value = Float(0.25 * sin(2 * Double.pi * frequency * Double(frame) / Double(rate)))
            return [value, value]
        }
    }

    func filtered(_ input: [Float], _ tone: inout ToneControl, block: Int = 480) -> [Float] {
        var samples = input
        samples.withUnsafeMutableBufferPointer { buffer in
            var frame = 0
            while frame < buffer.count / 2 {
                let count = min(block, buffer.count / 2 - frame)
                tone.process(buffer.baseAddress! + 2 * frame, frames: count)
                frame += count
            }
        }
        return samples
    }

    /// The gain in dB at `frequency`, over the last half second (the ramp and the filters settled).
    func gainDB(bass: Double, treble: Double, at frequency: Double, rate: Int) -> Double {
        var tone = ToneControl(sampleRate: rate)
        tone.set(bass: bass, treble: treble)
        let input = sine(frequency, seconds: 1.5, rate: rate)
        let output = filtered(input, &tone)
        let left = stride(from: 0, to: output.count, by: 2).map { output[$0] }
        let analysis = SignalAnalysis(samples: left, rate: Double(rate))
        let start = left.count - rate / 2
        return 20 * log10(analysis.amplitude(of: frequency, windowStart: start) / 0.25)
    }

    func testEachSettingHasItsGainAt50HzAnd10kHzAndLeaves1kHzAlone() {
        for rate in [48000, 44100] {
            for (bass, treble) in [(12.0, -12.0), (6, 9), (-9, 3)] {
                XCTAssertEqual(gainDB(bass: bass, treble: treble, at: 50, rate: rate), bass, accuracy: 0.5, "50 Hz at \(rate) Hz")
                XCTAssertEqual(gainDB(bass: bass, treble: treble, at: 10000, rate: rate), treble, accuracy: 0.5, "10 kHz at \(rate) Hz")
                XCTAssertEqual(gainDB(bass: bass, treble: treble, at: 1000, rate: rate), 0, accuracy: 0.2, "1 kHz at \(rate) Hz")
            }
        }
    }

    func testFlatLeavesTheSamplesUntouchedAndOutOfRangeIsClamped() {
        var tone = ToneControl(sampleRate: 48000)
        let input = sine(440, seconds: 0.2, rate: 48000)
        XCTAssertTrue(filtered(input, &tone) == input, "flat is a bypass, bit for bit")
        tone.set(bass: 40, treble: -.infinity)
        XCTAssertEqual(tone.bass, 12)
        XCTAssertEqual(tone.treble, 0, "a number that is not finite is no change")
    }

    /// Bass to +12 dB and treble to −12 dB in the middle of a 50 Hz + 1 kHz signal (whose own third
    /// difference is small, so a click would stand out), then back to flat: the output's largest third
    /// difference is no larger than the steady signal's at either setting.
    func testAChangeWhilePlayingDoesNotClick() {
        let rate = 48000
        let input = zip(sine(50, seconds: 3, rate: rate), sine(1000, seconds: 3, rate: rate)).map { ($0 + $1) / 2 }
        var tone = ToneControl(sampleRate: rate)
        var output: [Float] = []
        for (index, chunk) in stride(from: 0, to: input.count, by: 2 * 480).enumerated() {
            if index == 50 { tone.set(bass: 12, treble: -12) }
            if index == 200 { tone.set(bass: 0, treble: 0) }
            output += filtered(Array(input[chunk..<min(chunk + 2 * 480, input.count)]), &tone)
        }
        XCTAssertTrue(tone.isFlat, "back to flat after the ramp")
        let left = SignalAnalysis(samples: stride(from: 0, to: output.count, by: 2).map { output[$0] }, rate: Double(rate))
        let flat = left.largestThirdDifference(in: 0..<(50 * 480)).value
        let boosted = left.largestThirdDifference(in: (120 * 480)..<(200 * 480)).value
        let whole = left.largestThirdDifference(in: 0..<(300 * 480))
        XCTAssertLessThan(whole.value, max(flat, boosted) * 1.2, "no click: \(whole.value) at frame \(whole.at), steady \(flat) flat, \(boosted) boosted")
    }
}
