import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 31: in steady play of files the decode thread looks once a second, not every 0.2 or 0.5 s (each
/// wake-up costs more than the pass's work), and the ring it fills still never runs dry, also just after
/// the voice was opened with a second of audio.
final class DecodePaceTests: XCTestCase {
    func testSteadyPlayWakesTheDecodeThreadOnceASecondAndTheSpinPlaysWithoutAGap() throws {
        let rate = 44100
        let tones = try ToneSchedule([ToneSpin(id: "A", frequency: 700, rate: rate, codec: .m4a, airtime: 0, seconds: 30)])
        var spin = tones.schedule.spins[0]
        spin.airtime = Date().addingTimeInterval(-5) // under way: joined at the live position
        let sink = PacedSink(sampleRate: rate)
        let engine = LiveEngine(sink: sink, clock: SystemClock())
        engine.start()
        defer { engine.shutdown() }
        engine.setProgram([ProgramEntry(spin: spin, file: tones.files["A"])])
        usleep(1_000_000)
        let before = engine.decodeProgress
        usleep(6_000_000)
        let passes = engine.decodeProgress - before
        XCTAssertLessThanOrEqual(passes, 9, "6 s of steady play: about 6 passes, not the 12 of a 0.5 s timer")
        XCTAssertGreaterThanOrEqual(passes, 4, "it still looks once a second")
        let left = sink.left
        XCTAssertGreaterThan(left.count, 6 * rate)
        let analysis = SignalAnalysis(samples: left, rate: Double(rate))
        // From the join on: its first second is all the ring held when the voice opened.
        let joined = try XCTUnwrap(stride(from: 0, to: left.count - 441, by: 441).first { analysis.rms(from: $0, count: 441) > 0.1 })
        for start in stride(from: joined, to: left.count - 441, by: 441) {
            let level = analysis.rms(from: start, count: 441)
            guard level > 0.1 else { return XCTFail("a gap at \(start): RMS \(level) over 10 ms") }
        }
    }
}
