import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

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

    /// Through a `plug`, the card's own format when it is one of ours (no conversion); a card that takes none
    /// of ours (8-bit) is opened again with the plug's conversion, in the first format we prefer.
    func testAPlugGivesTheCardsOwnFormatElseConvertsOurs() throws {
        let folder = Fixtures.temporaryDirectory("alsa-plug-format")
        let configuration = folder + "/asound.conf"
        try """
        pcm.playola_s24card { type plug slave { pcm "null" format S24_3LE } }
        pcm.playola_u8card { type plug slave { pcm "null" format U8 } }
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:" + configuration, 1)
        let native = try ALSASink(device: "playola_s24card", sampleRate: 48000)
        XCTAssertEqual(native.format, .s24)
        XCTAssertEqual(native.bytesPerSample, 3, "S24_3LE, the card's own")
        let converted = try ALSASink(device: "playola_u8card", sampleRate: 48000)
        XCTAssertEqual(converted.format, .s32, "none of ours is the card's: the plug converts our first choice")
    }

    /// Issue 6, "must be shown" 1: a device that accepts writes but stops consuming frames (a wedged DAC, a
    /// stalled dmix) is dropped as gone within about half a second rather than waited on forever; the engine
    /// then probes for it, and plays again once it runs. Through a real alsa-lib PCM: a test plugin
    /// (`Tests/Support/alsa_clock_plugin.c`) that plays at real time until a flag file appears.
    func testADeviceThatStopsTakingFramesIsDroppedAndTheEngineReopensIt() throws {
        let freeze = try Self.stallCard()
        let block = [Float](repeating: 0.1, count: 1024 * 2)

        // The sink alone: real-time pace while it runs, then `deviceGone` soon after it stops.
        let sink = try ALSASink(device: "playola_stall", sampleRate: 48000, formats: [.s16])
        let began = monotonicSeconds()
        for _ in 0..<94 { try sink.write(block, frames: 1024) } // 2 s of audio
        let paced = monotonicSeconds() - began
        XCTAssertGreaterThan(paced, 1.0, "it plays at real time (the buffer fills at once, then the pace)")
        freeze(true)
        let frozenAt = monotonicSeconds()
        var failure: AudioSinkError?
        do {
            for _ in 0..<1000 { try sink.write(block, frames: 1024) }
        } catch {
            failure = error
        }
        let detected = monotonicSeconds() - frozenAt
        print("2 s written in \(paced) s; a stopped device detected \(detected) s after it stopped")
        guard case .deviceGone(_, let reason)? = failure else { return XCTFail("expected deviceGone, got \(String(describing: failure))") }
        XCTAssertEqual(reason, "the device stopped taking frames")
        XCTAssertLessThan(detected, 1.5, "the buffer's worth plus two periods and the 0.5 s grace")

        // The engine: the device is lost, then back once it runs again.
        freeze(false)
        let events = Mutex<[LiveEngine.DeviceEvent]>([])
        let engine = LiveEngine(mixRate: 48000, openSink: { () throws(AudioSinkError) -> any AudioSink in
            try ALSASink(device: "playola_stall", sampleRate: 48000, formats: [.s16])
        }, clock: SystemClock(), probeInterval: 0.3, onDevice: { event in events.withLock { $0.append(event) } })
        engine.start()
        defer { engine.shutdown() }
        func wait(_ seconds: Double, _ condition: () -> Bool) -> Bool {
            let deadline = monotonicSeconds() + seconds
            while monotonicSeconds() < deadline { if condition() { return true }; usleep(20_000) }
            return condition()
        }
        // The changes (opened, lost); each failed attempt to bring it back is an event of its own, for the log.
        func changes() -> [LiveEngine.DeviceEvent] {
            events.withLock { $0 }.filter { if case .attemptFailed = $0 { false } else { true } }
        }
        func attempts() -> [(AudioSinkError, Double?)] {
            events.withLock { $0 }.compactMap { if case .attemptFailed(let error, let openFor) = $0 { (error, openFor) } else { nil } }
        }
        XCTAssertTrue(wait(3) { changes() == [.opened] && engine.framesPlayed > 48000 / 2 }, "playing")
        freeze(true)
        XCTAssertTrue(wait(3) { changes().count == 2 }, "dropped")
        // Stopped for 3 s: it still opens, and each probe fills its buffer once, but it is not announced
        // back until it plays — no flapping, nothing more said, and little written into it.
        let frames = engine.framesPlayed
        usleep(3_000_000)
        XCTAssertEqual(changes().count, 2, "\(events.withLock { $0 })")
        XCTAssertLessThan(engine.framesPlayed - frames, 48000 * 3 / 2, "at most a buffer per probe")
        // Each attempt says why it failed and when: a card that opens and never takes a frame.
        let failed = attempts()
        XCTAssertFalse(failed.isEmpty, "the failed attempts are reported")
        for (error, openFor) in failed {
            XCTAssertEqual(error, .deviceGone(device: "playola_stall", reason: "the device never started taking frames"))
            XCTAssertNotNil(openFor, "it had opened")
        }
        freeze(false)
        XCTAssertTrue(wait(3) { changes().count == 3 && engine.framesPlayed > frames + 48000 / 4 }, "back and playing")
        let seen = changes()
        print("device events: \(events.withLock { $0 })")
        XCTAssertEqual(seen.first, .opened)
        XCTAssertEqual(seen[1], .lost(.deviceGone(device: "playola_stall", reason: "the device stopped taking frames")))
        XCTAssertEqual(seen.last, .opened)
    }

    /// The render thread waits for room in `awaitRoom`, not in `write`, so that a start from silence is acted
    /// on at once rather than after the device's next period: a wake ends the wait and is consumed; without
    /// one, a card that takes nothing keeps it waiting (no busy loop) for two periods and a little more.
    func testTheWaitForRoomEndsWhenWokenAndIsNotABusyLoop() throws {
        let freeze = try Self.stallCard()
        let sink = try ALSASink(device: "playola_stall", sampleRate: 48000, formats: [.s16], bufferTime: 1.2)
        let timeout = Double(sink.periodFrames * 2) / 48000 + 0.05
        let block = [Float](repeating: 0.1, count: 1024 * 2)
        for _ in 0..<(sink.bufferFrames / 1024 + 2) { try sink.write(block, frames: 1024) } // full: the card runs
        freeze(true)
        let wake = WakeEvent()
        func waited(_ body: () -> Void) -> Double {
            let began = monotonicSeconds()
            body()
            return monotonicSeconds() - began
        }
        let whole = sink.bufferFrames // never free while the card stands
        let alone = waited { sink.awaitRoom(for: whole, orUntil: wake) }
        XCTAssertGreaterThanOrEqual(alone, timeout - 0.01, "no room and no wake: it waits out its timeout")

        let woken = waited {
            startThread(named: "waker") { usleep(100_000); wake.signal() }
            sink.awaitRoom(for: whole, orUntil: wake)
        }
        print("a stalled card's wait: \(alone) s alone, \(woken) s when woken after 0.1 s (timeout \(timeout) s)")
        XCTAssertGreaterThanOrEqual(woken, 0.1, "not before the wake")
        XCTAssertLessThan(woken, timeout - 0.05, "the wake ended it, not the timeout")
        XCTAssertGreaterThanOrEqual(waited { sink.awaitRoom(for: whole, orUntil: wake) }, timeout - 0.01, "the wake was consumed")

        wake.signal() // a signal before the wait is not lost
        XCTAssertLessThan(waited { sink.awaitRoom(for: whole, orUntil: wake) }, timeout - 0.05)

        freeze(false)
        sink.awaitRoom(for: 1024, orUntil: wake)
        XCTAssertGreaterThanOrEqual(sink.bufferFrames - sink.delay(), 1024, "a running card: it returns with room")
    }

    /// Builds the test card (`Tests/Support/alsa_clock_plugin.c`) as `playola_stall`, which plays at real time
    /// until it is frozen; returns the switch that freezes it.
    static func stallCard() throws -> (Bool) -> Void {
        let folder = Fixtures.temporaryDirectory("alsa-stall")
        let library = folder + "/libasound_module_pcm_playola_clock.so"
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/alsa_clock_plugin.c").path
        try Fixtures.run("cc", ["-shared", "-fPIC", "-DPIC", "-o", library, source, "-lasound"]) // PIC: the plugin symbol macros want it
        let flag = folder + "/frozen"
        let configuration = folder + "/asound.conf"
        try """
        pcm_type.playola_clock { lib "\(library)" }
        pcm.playola_stall { type playola_clock flag "\(flag)" }
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:" + configuration, 1)
        return { on in
            if on { _ = FileManager.default.createFile(atPath: flag, contents: nil) } else { try? FileManager.default.removeItem(atPath: flag) }
        }
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
