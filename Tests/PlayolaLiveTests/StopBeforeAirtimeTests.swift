import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// A spin the engine has already placed ahead (its airtime within the 2 s lookahead) and that leaves the
/// program before it sounds — a stop, a station change — is never heard. It used to play 20 ms of itself,
/// full level, fading, when its airtime came (the image test heard a tone come back 1.16 s after a stop).
final class StopBeforeAirtimeTests: XCTestCase {
    func testASpinPlacedAheadAndStoppedBeforeItsAirtimeIsNeverHeard() throws {
        let sink = PacedSink()
        let engine = LiveEngine(sink: sink, clock: SystemClock())
        engine.start()
        defer { engine.shutdown() }
        let now = Date()
        func spin(_ id: String, _ from: Double, _ seconds: Double) -> Spin {
            Spin(id: id, stationID: "s", airtime: now.addingTimeInterval(from), startingVolume: 1, fades: [],
                 audioBlock: AudioBlock(id: "b-" + id, title: id, artist: "t", durationMS: Int(seconds * 1000),
                                        endOfMessageMS: Int(seconds * 1000), downloadURL: nil))
        }
        let playing = try Fixtures.tone(600, seconds: 3, rate: 48000, codec: .wav)
        let ahead = try Fixtures.tone(900, seconds: 3, rate: 48000, codec: .wav)
        engine.setProgram([ProgramEntry(spin: spin("now", -0.5, 3), file: playing),
                           ProgramEntry(spin: spin("ahead", 1.5, 3), file: ahead)])
        usleep(800_000) // the decode thread has placed both: "ahead" is 0.7 s from its airtime
        let stoppedAt = sink.left.count // frames the sink had taken when the stop came
        engine.setProgram([])
        usleep(2_000_000) // past the airtime of "ahead"
        let samples = sink.left
        let analysis = SignalAnalysis(samples: samples, rate: 48000)
        XCTAssertGreaterThan(analysis.amplitude(of: 600, around: stoppedAt - 12000), 0.2, "the spin playing was heard")
        // From 0.3 s after the stop (the sink's own buffer, the 20 ms fade) to the end: nothing, at any 10 ms.
        // In steps: Swift 6.0.3 gives up type-checking it as one expression.
        let peaks: [Float] = stride(from: stoppedAt + 14400, to: samples.count - 480, by: 480).map { start in
            samples[start..<start + 480].map(abs).max() ?? 0
        }
        let loudest = peaks.max() ?? 0
        XCTAssertLessThan(loudest, 0.001, "a spin placed ahead and stopped before its airtime stays silent")
    }
}
