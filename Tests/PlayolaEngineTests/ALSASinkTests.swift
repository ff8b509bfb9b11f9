import Foundation
import PlayolaEngine
import XCTest

/// Issue 2, "must be shown" 4: the ALSA sink, through alsa-lib's own `file` plugin, writes exactly the
/// frames of the WAV render of the same input.
final class ALSASinkTests: XCTestCase {
    func testALSAFilePluginReceivesExactlyTheFramesOfTheWAVRender() throws {
        let folder = Fixtures.temporaryDirectory("alsa")
        let capture = folder + "/capture.raw"
        let configuration = folder + "/asound.conf"
        try """
        pcm.playola_capture {
            type file
            slave.pcm "null"
            file "\(capture)"
            format "raw"
        }
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:" + configuration, 1)

        let tones = try ToneSchedule([
            ToneSpin(id: "P", frequency: 600, rate: 44100, codec: .m4a, airtime: 0.25, seconds: 4,
                     fades: [Fade(atMS: 2500, toVolume: 0.3)]),
            ToneSpin(id: "Q", frequency: 900, rate: 48000, codec: .mp3, airtime: 3, seconds: 3),
        ])
        let seconds = 7.0
        func render(into sink: any AudioSink) throws {
            let renderer = ProgramRenderer(schedule: tones.schedule, from: ToneSchedule.origin, sink: sink,
                                           resolveFile: { tones.files[$0.id] }, report: { _ in })
            try renderer.render(frames: Int64(seconds * Double(sink.sampleRate)))
            try sink.drain()
        }
        do {
            let alsa = try ALSASink(device: "playola_capture", sampleRate: 48000, formats: [.s16])
            XCTAssertEqual(alsa.sampleRate, 48000)
            XCTAssertEqual(alsa.format, .s16)
            try render(into: alsa)
        }
        let wavPath = folder + "/render.wav"
        do { try render(into: try WAVFileSink(path: wavPath, sampleRate: 48000, format: .s16)) }

        let captured = try Data(contentsOf: URL(fileURLWithPath: capture))
        let wav = try WAVFile(path: wavPath)
        XCTAssertEqual(wav.data.count, Int(seconds * 48000) * 4)
        XCTAssertEqual(captured.count, wav.data.count, "frames written through ALSA")
        XCTAssertTrue(captured == wav.data, "the ALSA capture differs from the WAV render")
        XCTAssertGreaterThan(SignalAnalysis(samples: wav.left, rate: 48000).rms(from: 48000, count: 48000), 0.1)
    }

    func testAMissingDeviceIsDeviceGone() {
        XCTAssertThrowsError(try ALSASink(device: "hw:CARD=NoSuchCard,DEV=0")) { error in
            guard case .deviceGone(let device, _)? = error as? AudioSinkError else {
                return XCTFail("expected deviceGone, got \(error)")
            }
            XCTAssertEqual(device, "hw:CARD=NoSuchCard,DEV=0")
        }
    }
}
