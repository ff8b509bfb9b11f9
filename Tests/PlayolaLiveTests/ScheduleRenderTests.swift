import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 2, "must be shown" 1: a 3-minute schedule of tones rendered in virtual time, analysed sample by sample.
final class ScheduleRenderTests: XCTestCase {
    static let rate = 48000.0
    /// Third differences of the fixtures' tones and codec noise stay below this; a step of 0.01 exceeds it.
    static let clickThreshold: Float = 0.012
    func testEverySpinStartsWithinOneMillisecondOfItsAirtime() throws {
        let (tones, sink, events) = try StandardRender.get()
        let analysis = SignalAnalysis(samples: sink.left, rate: Self.rate)
        for tone in tones.spins {
            let expected = tone.airtime * Self.rate
            let level = Fixtures.amplitude * Double(tone.startingVolume)
            let onset = try XCTUnwrap(analysis.onset(of: tone.frequency, near: Int(expected), level: level), "spin \(tone.id) never starts")
            let errorMS = (onset - expected) / Self.rate * 1000
            XCTAssertLessThan(abs(errorMS), 1, "spin \(tone.id) heard \(errorMS) ms from its airtime")
            let start = try XCTUnwrap(events.first { $0.spin.id == tone.id && $0.kind == .start })
            XCTAssertEqual(start.time.timeIntervalSince(ToneSchedule.origin), tone.airtime, accuracy: 0.0005)
        }
        XCTAssertFalse(events.contains { $0.kind == .error }, "\(events.filter { $0.kind == .error })")
    }

    func testEachSpinsGainFollowsItsEnvelopeWithinHalfADecibel() throws {
        let (tones, sink, _) = try StandardRender.get()
        let analysis = SignalAnalysis(samples: sink.left, rate: Self.rate)
        var checked = 0
        for tone in tones.spins {
            let envelope = GainEnvelope(startingVolume: tone.startingVolume, fades: tone.fades)
            var instants = Array(stride(from: 0.05, to: min(tone.seconds - 0.05, 180 - tone.airtime - 0.05), by: 0.25))
            // Inside every ramp, where a wrong slope or a wrong starting level shows most.
            for fade in tone.fades { instants += [0.2, 0.5, 0.75, 1.0, 1.3].map { Double(fade.atMS) / 1000 + $0 } }
            for position in instants where position < tone.seconds - 0.05 && tone.airtime + position < 179.9 {
                let expected = Double(envelope.gain(atMS: position * 1000)) * Fixtures.amplitude
                guard expected > Fixtures.amplitude * 0.05 else { continue }
                let frame = Int((tone.airtime + position) * Self.rate)
                let measured = analysis.amplitude(of: tone.frequency, around: frame)
                XCTAssertLessThan(abs(decibels(measured / expected)), 0.5,
                                  "spin \(tone.id) at \(position) s: gain \(measured / Fixtures.amplitude), envelope \(expected / Fixtures.amplitude)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 600)
    }

    func testNoClickAnywhere() throws {
        let (_, sink, _) = try StandardRender.get()
        let analysis = SignalAnalysis(samples: sink.left, rate: Self.rate)
        let (largest, at) = analysis.largestThirdDifference()
        print("largest third difference: \(largest) at \(Double(at) / Self.rate) s")
        XCTAssertLessThan(largest, Self.clickThreshold, "discontinuity at \(Double(at) / Self.rate) s")
        // The detector itself: the same signal with a step of 0.01 (-28 dB below a tone) added must fail it.
        var stepped = Array(sink.left[4_800_000..<4_810_000])
        for index in 5000..<stepped.count { stepped[index] += 0.01 }
        XCTAssertGreaterThan(SignalAnalysis(samples: stepped, rate: Self.rate).largestThirdDifference().value, Self.clickThreshold)
    }

    func testNoSilenceWhereASpinIsScheduled() throws {
        let (tones, sink, _) = try StandardRender.get()
        let analysis = SignalAnalysis(samples: sink.left, rate: Self.rate)
        let window = analysis.window
        var checked = 0
        for start in stride(from: Int(1.01 * Self.rate), to: sink.frameCount - window, by: window) {
            let time = (Double(start) + Double(window) / 2) / Self.rate
            var expectedPower = 0.0
            for tone in tones.spins where time > tone.airtime + 0.005 && time < tone.airtime + tone.seconds - 0.025 {
                let gain = Double(GainEnvelope(startingVolume: tone.startingVolume, fades: tone.fades).gain(atMS: (time - tone.airtime) * 1000))
                expectedPower += pow(gain * Fixtures.amplitude, 2) / 2
            }
            guard expectedPower > pow(0.02, 2) / 2 else { continue }
            let measured = analysis.rms(from: start, count: window)
            XCTAssertGreaterThan(measured, 0.5 * expectedPower.squareRoot(), "gap at \(time) s")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 17_000)
    }
}
