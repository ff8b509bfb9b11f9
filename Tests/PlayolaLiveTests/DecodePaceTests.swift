import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 31: in steady play the decode thread looks every 0.5 s, not every 0.2 s (each wake-up costs more
/// than the pass's work), and the ring it fills still never runs dry.
final class DecodePaceTests: XCTestCase {
    func testSteadyPlayWakesTheDecodeThreadTwiceASecondAndTheSpinPlaysWithoutAGap() throws {
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
        usleep(4_000_000)
        let passes = engine.decodeProgress - before
        XCTAssertLessThanOrEqual(passes, 12, "4 s of steady play: about 8 passes, not the 20 of a 0.2 s timer")
        XCTAssertGreaterThanOrEqual(passes, 6, "it still looks twice a second")
        let left = sink.left
        XCTAssertGreaterThan(left.count, 4 * rate)
        let analysis = SignalAnalysis(samples: left, rate: Double(rate))
        for start in stride(from: left.count - 4 * rate, to: left.count - 441, by: 441) {
            let level = analysis.rms(from: start, count: 441)
            guard level > 0.1 else { return XCTFail("a gap at \(start): RMS \(level) over 10 ms") }
        }
    }
}
