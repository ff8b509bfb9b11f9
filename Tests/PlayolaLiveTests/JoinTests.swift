import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 2, "must be shown" 2: joining mid-song lands on the exact sample a render from before the spin has there.
final class JoinTests: XCTestCase {
    func check(
        spin id: String, joinAfter seconds: Double, bitExact: Bool,
        in tones: ToneSchedule? = nil, reference: CaptureSink? = nil
    ) throws {
        let (standard, standardReference, _) = try StandardRender.get()
        let tones = tones ?? standard
        let reference = reference ?? standardReference
        let tone = try XCTUnwrap(tones.spins.first { $0.id == id })
        let rate = 48000.0
        let joinFrame = Int((seconds * rate).rounded())
        let (joined, events) = try tones.render(from: tone.airtime + Double(joinFrame) / rate, seconds: 1)
        let join = try XCTUnwrap(events.first { $0.spin.id == id })
        XCTAssertEqual(join.kind, .join)
        let offset = Int(tone.airtime * rate) + joinFrame
        let expected = Array(reference.samples[(offset * 2)..<((offset + 48000) * 2)])
        let actual = joined.samples
        XCTAssertEqual(actual.count, expected.count)
        if bitExact {
            let firstDifference = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }
            XCTAssertNil(firstDifference, "\(id): first differing sample at frame \((firstDifference?.offset ?? 0) / 2)")
        }
        var error = 0.0
        var signal = 0.0
        for (a, e) in zip(actual, expected) {
            error += Double(a - e) * Double(a - e)
            signal += Double(e) * Double(e)
        }
        XCTAssertGreaterThan(signal, 0, "\(id): nothing playing at the join")
        let residual = 10 * log10(max(error, 1e-30) / signal)
        XCTAssertLessThan(residual, -40, "\(id): residual \(residual) dB")
    }

    func testMP3At48kHzJoinsBitExactly() throws { try check(spin: "A", joinAfter: 12.345_67, bitExact: true) }
    func testM4AAt48kHzJoinsBitExactly() throws { try check(spin: "C", joinAfter: 17.000_31, bitExact: true) }
    func testMP3At44kHzJoinsThroughTheResampler() throws { try check(spin: "D", joinAfter: 9.876_54, bitExact: false) }
    func testM4AAt44kHzJoinsThroughTheResampler() throws { try check(spin: "B", joinAfter: 21.111_11, bitExact: false) }
    func testJoinInsideARampIsBitExact() throws {
        // Alone, so no resampled neighbour blurs the comparison: a fade pre-empted by the next one.
        let tones = try ToneSchedule([
            ToneSpin(id: "R", frequency: 500, rate: 48000, codec: .mp3, airtime: 0.5, seconds: 40,
                     fades: [Fade(atMS: 5000, toVolume: 0.2), Fade(atMS: 5500, toVolume: 1)]),
        ])
        let (reference, _) = try tones.render(seconds: 9)
        for position in [5.1, 5.3, 5.6, 6.5] {
            try check(spin: "R", joinAfter: position + 0.000_123, bitExact: true, in: tones, reference: reference)
        }
    }

    func testJoinDuringAnOverlapMatches() throws { try check(spin: "A", joinAfter: 37.6, bitExact: false) }
}
