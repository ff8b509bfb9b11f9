import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 15, "must be shown" 3 (`play` → audio at most 100 ms): a spin that starts while the device holds
/// only silence takes that silence back and replaces it, instead of queueing behind a whole device buffer
/// (0.3 s) plus the decode margin (0.1 s). Through a real alsa-lib PCM: a test sound card
/// (`Tests/Support/alsa_clock_plugin.c`) that plays at real time from a ring of one buffer, as hardware does,
/// and appends each frame to a capture file when its clock plays it.
final class StartFromSilenceTests: XCTestCase {
    static let rate = 44100

    func testASpinStartedWhileTheDeviceHoldsSilenceIsHeardWithinAHundredMilliseconds() throws {
        try assertHeardWithinAHundredMilliseconds(device: "playola_card", formats: [.s16])
    }

    /// Through a `plug` (what most cards' `default` is) with the formats we prefer: the card's own format is
    /// asked for, not S32 that the plug converts, so its queued silence can still be taken back (a conversion
    /// plugin can take back only its last write). Fails with the conversion: this test card stalls behind it.
    func testThroughAPlugTheCardsOwnFormatIsUsedSoSilenceCanStillBeReplaced() throws {
        _ = try Self.clockedCard(named: "playola_card")
        do {
            let sink = try ALSASink(device: "plug:playola_card", sampleRate: Self.rate)
            XCTAssertEqual(sink.format, .s16, "the card's own format (S16 only), not S32 converted by the plug")
        }
        try assertHeardWithinAHundredMilliseconds(device: "plug:playola_card", formats: [.s32, .s24, .float32, .s16])
    }

    private func assertHeardWithinAHundredMilliseconds(device: String, formats: [SampleFormat]) throws {
        let capture = try Self.clockedCard(named: "playola_card")
        let tones = try ToneSchedule([ToneSpin(id: "A", frequency: 700, rate: Self.rate, codec: .m4a, airtime: 0, seconds: 30)])
        var spin = tones.schedule.spins[0]
        spin.airtime = Date().addingTimeInterval(-10) // under way: the engine joins it at the live position
        let engine = LiveEngine(
            mixRate: Self.rate,
            openSink: { () throws(AudioSinkError) in try ALSASink(device: device, sampleRate: Self.rate, formats: formats) },
            clock: SystemClock())
        engine.start()
        defer { engine.shutdown() }

        // The card plays silence for a second: its buffer is full of it.
        try Self.waitUntil(Self.framesPlayed(capture) > Self.rate)
        for attempt in 0..<3 {
            let asked = Self.framesPlayed(capture)
            engine.setProgram([ProgramEntry(spin: spin, file: tones.files["A"])])
            try Self.waitUntil(Self.framesPlayed(capture) > asked + Self.rate)
            let left = try Self.left(capture)
            let onset = try XCTUnwrap(left[asked...].firstIndex { abs($0) > 0.05 }, "no sound after the start")
            let latency = Double(onset - asked) / Double(Self.rate)
            print("start \(attempt): heard \(Int(latency * 1000)) ms after it was asked for")
            XCTAssertLessThan(latency, 0.1, "start \(attempt): heard \(Int(latency * 1000)) ms after it was asked for")
            // What sounds is the spin, at full level: 700 Hz, not a burst of something else.
            let heard = Array(left[(onset + 2205)..<(onset + 2205 + Self.rate / 2)])
            let crossings = zip(heard, heard.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            XCTAssertEqual(crossings, 350, accuracy: 3, "start \(attempt)")
            XCTAssertGreaterThan(SignalAnalysis(samples: heard, rate: Double(Self.rate)).rms(from: 0, count: heard.count), 0.15)

            // Stopped, the spin fades out and the device holds silence again.
            engine.setProgram([])
            let stopped = Self.framesPlayed(capture)
            try Self.waitUntil(Self.framesPlayed(capture) > stopped + Self.rate)
        }
    }

    /// A device that says it can take back only about its last write (alsa-lib's conversion plugins: a `plug`
    /// from S32 to a 16-bit card) is never asked to rewind; one that can take back its buffer is.
    func testOnlyADeviceThatCanTakeBackMoreThanItsLastWritesIsRewound() throws {
        final class Card: AudioSink {
            let paced = PacedSink(sampleRate: 44100)
            let rewindable: Int
            let rewinds = Atomic<Int>(0)
            init(rewindable: Int) { self.rewindable = rewindable }
            var sampleRate: Int { paced.sampleRate }
            func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) { try paced.write(samples, frames: frames) }
            func drain() throws(AudioSinkError) {}
            func delay() -> Int { paced.delay() }
            func rewindableFrames() -> Int { rewindable }
            func rewind(frames: Int) -> Int { rewinds.add(1, ordering: .relaxed); return 0 } // came short: the voice skips
        }
        let tones = try ToneSchedule([ToneSpin(id: "A", frequency: 700, rate: Self.rate, codec: .m4a, airtime: 0, seconds: 30)])
        var spin = tones.schedule.spins[0]
        spin.airtime = Date().addingTimeInterval(-10)
        for (rewindable, rewound) in [(2048, false), (Self.rate / 4, true)] {
            let card = Card(rewindable: rewindable)
            let engine = LiveEngine(sink: card, clock: SystemClock())
            engine.start()
            usleep(500_000)
            engine.setProgram([ProgramEntry(spin: spin, file: tones.files["A"])])
            usleep(700_000)
            engine.shutdown()
            usleep(100_000)
            XCTAssertEqual(card.rewinds.load(ordering: .relaxed) > 0, rewound, "rewindable \(rewindable) frames")
            let left = card.paced.left
            XCTAssertGreaterThan(SignalAnalysis(samples: Array(left.suffix(Self.rate / 4)), rate: Double(Self.rate))
                .rms(from: 0, count: Self.rate / 4), 0.15, "rewindable \(rewindable): the spin plays")
        }
    }

    /// A start from silence whose voice took a while to open (a loaded machine: the image test's emulated
    /// guest, right after its USB card came back): by the time the render thread rewinds, the frame asked for
    /// is heard already. The rewind stops short of what the device is about to play, so it never runs dry;
    /// taking back all it could emptied the device, and the USB card underran, stood still after the xrun's
    /// prepare, and was dropped and reopened, a `join` each time (fails without the guard: 0 frames left, an
    /// underrun).
    func testARewindForAVoiceThatWasSlowToOpenNeverEmptiesTheDevice() throws {
        /// A device with a 0.3 s ring played at real time from the first write, as hardware does: everything
        /// queued can be taken back (as alsa-lib's `hw` says), and a write that finds it ran dry counts an underrun.
        final class RingCard: AudioSink, @unchecked Sendable {
            // @unchecked Sendable: written by the render thread only; the test reads the atomics.
            let sampleRate = StartFromSilenceTests.rate
            let buffer = StartFromSilenceTests.rate * 3 / 10
            private var started: Double?
            private var base: Int64 = 0
            private var written: Int64 = 0
            let underruns = Atomic<Int>(0)
            let rewinds = Atomic<Int>(0)
            let leastLeft = Atomic<Int>(.max)
            private func played(_ now: Double) -> Int64 {
                guard let started else { return 0 }
                return base + Int64((now - started) * Double(sampleRate))
            }
            func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
                var now = monotonicSeconds()
                if started == nil { started = now }
                if played(now) > written { // it ran dry: it starts again from what comes now
                    underruns.add(1, ordering: .relaxed)
                    base = written
                    started = now
                }
                for frame in 0..<frames { captured.append(samples[2 * frame]) } // the left channel
                written += Int64(frames)
                now = monotonicSeconds()
                let excess = written - played(now) - Int64(buffer)
                if excess > 0 { usleep(UInt32(Double(excess) / Double(sampleRate) * 1e6)) }
            }
            var captured: [Float] = []
            func drain() throws(AudioSinkError) {}
            func delay() -> Int { Int(max(0, written - played(monotonicSeconds()))) }
            func rewindableFrames() -> Int { delay() }
            func rewind(frames: Int) -> Int {
                let queued = delay()
                let taken = min(frames, queued)
                written -= Int64(taken)
                captured.removeLast(min(taken, captured.count))
                rewinds.add(1, ordering: .relaxed)
                leastLeft.min(queued - taken, ordering: .relaxed)
                return taken
            }
        }
        let tones = try ToneSchedule([ToneSpin(id: "A", frequency: 700, rate: Self.rate, codec: .m4a, airtime: 0, seconds: 30)])
        var spin = tones.schedule.spins[0]
        spin.airtime = Date().addingTimeInterval(-10)
        let card = RingCard()
        let engine = LiveEngine(sink: card, clock: SystemClock(), openFile: { path throws(AudioDecoderError) -> any AudioDecoder in
            usleep(250_000) // slow to open: the silence it was to replace is heard meanwhile
            return try openAudioFile(path: path)
        })
        engine.start()
        usleep(600_000) // the card holds 0.3 s of silence
        engine.setProgram([ProgramEntry(spin: spin, file: tones.files["A"])])
        usleep(1_200_000)
        engine.shutdown()
        usleep(100_000)
        let left = card.leastLeft.load(ordering: .relaxed)
        print("rewinds \(card.rewinds.load(ordering: .relaxed)), fewest frames left queued by one \(left), underruns \(card.underruns.load(ordering: .relaxed))")
        XCTAssertGreaterThan(card.rewinds.load(ordering: .relaxed), 0, "a start from silence")
        // A block, less what the card's clock played between the engine's rewindableFrames() and its rewind.
        XCTAssertGreaterThanOrEqual(left, 1024 - Self.rate / 1000, "a rewind keeps what is about to be heard: a block")
        XCTAssertEqual(card.underruns.load(ordering: .relaxed), 0, "the device never ran dry")
        let tail = Array(card.captured.suffix(Self.rate / 4))
        XCTAssertGreaterThan(SignalAnalysis(samples: tail, rate: Double(Self.rate)).rms(from: 0, count: tail.count), 0.15, "the spin plays")
    }

    /// Builds the test card's plugin and an ALSA configuration naming it `name`; returns its capture path.
    static func clockedCard(named name: String) throws -> String {
        let folder = Fixtures.temporaryDirectory("clocked-card")
        let library = folder + "/libasound_module_pcm_playola_clock.so"
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/alsa_clock_plugin.c").path
        try Fixtures.run("cc", ["-shared", "-fPIC", "-DPIC", "-O2", "-o", library, source, "-lasound"])
        let capture = folder + "/capture.raw"
        let configuration = folder + "/asound.conf"
        try """
        pcm_type.playola_clock { lib "\(library)" }
        pcm.\(name) { type playola_clock capture "\(capture)" }
        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:" + configuration, 1)
        return capture
    }

    /// Frames the card has played: its capture grows as its clock plays them (S16 stereo).
    static func framesPlayed(_ capture: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: capture)[.size] as? Int) ?? 0) / 4
    }

    static func left(_ capture: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: capture))
        return data.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            return stride(from: 0, to: samples.count - 1, by: 2).map { Float(Int16(littleEndian: samples[$0])) / 32768 }
        }
    }

    struct CardStalled: Error, CustomStringConvertible {
        var description: String { "the test card stopped playing (its capture did not grow)" }
    }

    static func waitUntil(_ condition: @autoclosure () -> Bool, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw CardStalled() }
            usleep(10_000)
        }
    }
}
