import Foundation
import PlayolaEngine

/// A schedule of tone spins, each a distinct frequency on a multiple of 100 Hz, so the analysis can
/// follow every spin through the mix.
package struct ToneSpin {
    package var id: String
    package var frequency: Double
    var rate: Int
    var codec: Fixtures.Codec
    /// Seconds after the schedule's origin.
    package var airtime: Double
    package var seconds: Double
    package var startingVolume: Float = 1
    package var fades: [Fade] = []

    package init(
        id: String, frequency: Double, rate: Int, codec: Fixtures.Codec, airtime: Double, seconds: Double,
        startingVolume: Float = 1, fades: [Fade] = []
    ) {
        self.id = id
        self.frequency = frequency
        self.rate = rate
        self.codec = codec
        self.airtime = airtime
        self.seconds = seconds
        self.startingVolume = startingVolume
        self.fades = fades
    }
}

package struct ToneSchedule {
    package static let origin = PlayolaDate.parse("2025-01-01T00:00:00Z")!
    package var spins: [ToneSpin]
    /// Spin file paths by id.
    package let files: [String: String]

    init(spins: [ToneSpin], files: [String: String]) {
        self.spins = spins
        self.files = files
    }

    package init(_ spins: [ToneSpin]) throws {
        self.spins = spins
        var files: [String: String] = [:]
        for spin in spins {
            files[spin.id] = try Fixtures.tone(spin.frequency, seconds: spin.seconds, rate: spin.rate, codec: spin.codec)
        }
        self.files = files
    }

    package var schedule: Schedule {
        Schedule(spins: spins.map { tone in
            Spin(
                id: tone.id, stationID: "tones", airtime: Self.origin.addingTimeInterval(tone.airtime),
                startingVolume: tone.startingVolume, fades: tone.fades,
                audioBlock: AudioBlock(
                    id: "block-" + tone.id, title: "Tone \(Int(tone.frequency)) Hz", artist: "Test",
                    durationMS: Int(tone.seconds * 1000), endOfMessageMS: Int(tone.seconds * 1000) - 1000,
                    downloadURL: "https://example.invalid/" + tone.id))
        })
    }

    /// Renders `seconds` from `origin + from` in virtual time; returns the samples and the events.
    package func render(from: Double = 0, seconds: Double, rate: Int = 48000) throws -> (CaptureSink, [PlayEvent]) {
        let sink = CaptureSink(sampleRate: rate)
        var events: [PlayEvent] = []
        let renderer = ProgramRenderer(
            schedule: schedule, from: Self.origin.addingTimeInterval(from), sink: sink,
            resolveFile: { files[$0.id] }, report: { events.append($0) })
        try renderer.render(frames: Int64(seconds * Double(rate)))
        return (sink, events)
    }

    /// The spins every engine test uses: MP3 and M4A at 44.1 and 48 kHz, overlaps, a duck 1 → 0.3 → 0,
    /// a fade that starts during another ramp, and a fade pre-empted by the next one.
    package static func standard() throws -> ToneSchedule {
        try ToneSchedule([
            ToneSpin(id: "A", frequency: 500, rate: 48000, codec: .mp3, airtime: 1, seconds: 40,
                     fades: [Fade(atMS: 37000, toVolume: 0.3), Fade(atMS: 39000, toVolume: 0)]),
            ToneSpin(id: "B", frequency: 800, rate: 44100, codec: .m4a, airtime: 38, seconds: 30,
                     fades: [Fade(atMS: 28500, toVolume: 0)]),
            ToneSpin(id: "C", frequency: 1100, rate: 48000, codec: .m4a, airtime: 66, seconds: 45, startingVolume: 0.5,
                     fades: [Fade(atMS: 1000, toVolume: 1), Fade(atMS: 42000, toVolume: 0.3), Fade(atMS: 42800, toVolume: 0)]),
            ToneSpin(id: "D", frequency: 1400, rate: 44100, codec: .mp3, airtime: 108, seconds: 40,
                     fades: [Fade(atMS: 20000, toVolume: 0.3), Fade(atMS: 20500, toVolume: 1), Fade(atMS: 38500, toVolume: 0)]),
            ToneSpin(id: "E", frequency: 1700, rate: 44100, codec: .m4a, airtime: 146, seconds: 40),
        ])
    }
}
