import Foundation
import PlayolaEngine
import XCTest

/// A schedule of three spins whose middle one plays a given (broken) file, for the tests of bad input.
extension XCTestCase {
    /// Renders `broken` (a spin whose file is `path`) between two good spins; returns the events and analysis.
    package func renderAround(brokenFile path: String, seconds: Double = 6) throws -> ([PlayEvent], SignalAnalysis) {
        var tones = try ToneSchedule([
            ToneSpin(id: "before", frequency: 400, rate: 48000, codec: .mp3, airtime: 0, seconds: 2),
            ToneSpin(id: "broken", frequency: 700, rate: 48000, codec: .mp3, airtime: 2, seconds: seconds),
            ToneSpin(id: "after", frequency: 1000, rate: 48000, codec: .m4a, airtime: 2 + seconds, seconds: 2),
        ])
        var files = tones.files
        files["broken"] = path
        tones = ToneSchedule(spins: tones.spins, files: files)
        let (sink, events) = try tones.render(seconds: 4 + seconds)
        return (events, SignalAnalysis(samples: sink.left, rate: 48000))
    }

    package func assertPlays(_ analysis: SignalAnalysis, _ frequency: Double, at seconds: Double, _ message: String) {
        XCTAssertGreaterThan(analysis.amplitude(of: frequency, around: Int(seconds * 48000)), 0.2, message)
    }
}
