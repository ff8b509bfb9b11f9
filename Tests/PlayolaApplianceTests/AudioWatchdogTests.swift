import Dispatch
import Foundation
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 12: the watchdog is fed only while the decode side makes progress. The real engine plays in real
/// time into a paced null sink; its decode thread is then wedged inside opening a spin's file (the opener
/// blocks, as `open` on a FIFO with no writer does) while the render thread goes on writing silence.
final class AudioWatchdogTests: XCTestCase {
    func testTheGateStopsFeedingWhileTheDecodeThreadIsWedgedAndFeedsAgainOnceItMoves() throws {
        let folder = NSTemporaryDirectory() + "watchdog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tone = folder + "/tone.wav"
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t)|0.5*sin(2*PI*1000*t):s=48000:d=5", tone])

        let release = DispatchSemaphore(value: 0)
        let engine = LiveEngine(sink: RealTimePacer(NullSink(sampleRate: 48000)), clock: SystemClock(), openFile: { path throws(AudioDecoderError) in
            if path.hasSuffix("wedged.wav") { release.wait() } // the decode thread stops here
            return try openAudioFile(path: tone)
        })
        engine.start()
        defer { engine.shutdown() }

        var gate = WatchdogGate()
        // Ticks every 250 ms for `seconds`; the feed decisions.
        func ticks(_ seconds: Double) -> [Bool] {
            (0..<Int(seconds * 4)).map { _ in
                usleep(250_000)
                return gate.shouldFeed(framesPlayed: engine.framesPlayed, decodeProgress: engine.decodeProgress,
                                       deliberatelyIdle: false, now: monotonicSeconds())
            }
        }
        XCTAssertEqual(ticks(1), [true, true, true, true], "fed while the engine runs")

        let spin = Spin(id: "wedged", stationID: "s", airtime: Date(), startingVolume: 1, fades: [],
                        audioBlock: AudioBlock(id: "w", title: "w", artist: "", durationMS: 5000, endOfMessageMS: 5000, downloadURL: nil))
        engine.setProgram([ProgramEntry(spin: spin, file: folder + "/wedged.wav")])
        let framesBefore = engine.framesPlayed
        let progressBefore = engine.decodeProgress
        let wedged = ticks(3.5)
        XCTAssertGreaterThan(engine.framesPlayed - framesBefore, 48000, "the render thread kept writing (silence)")
        XCTAssertLessThanOrEqual(engine.decodeProgress - progressBefore, 1, "the decode thread is wedged")
        XCTAssertEqual(Array(wedged.suffix(5)), [false, false, false, false, false], "no feeding while decode is wedged (after the 2 s tolerance): \(wedged)")

        release.signal()
        let recovered = ticks(1)
        XCTAssertEqual(Array(recovered.suffix(2)), [true, true], "fed again once decoding moves: \(recovered)")
    }
}
