import Foundation
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
@testable import PlayolaGPIO
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 12, "must be shown" 1, the number classes: every number from the command line, the INI and a
/// schedule ends in a named error or a clamped value — never a trap (the binary is run, and a trap would
/// show as a signal, not an exit status).
final class HostileNumberTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "hostile-numbers-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/media", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func playola(_ arguments: [String]) throws -> PlayolaRun { try PlayolaRun(arguments) }

    // MARK: command line

    func testCommandLineNumbersEndInAUsageErrorNamingTheOptionAndItsRange() throws {
        let render = ["render", "--schedule", directory + "/none.json", "--media", directory + "/media",
                      "--from", "2026-01-01T00:00:00Z", "--out", "null"]
        let api = ["render", "--api", "http://127.0.0.1:9", "--station-id", "x", "--from", "2026-01-01T00:00:00Z",
                   "--duration", "1", "--out", "null"]
        let cases: [(arguments: [String], says: String)] = [
            (["run", "--for", "nan"], "--for: a number of seconds above 0 and at most 31536000, not 'nan'"),
            (["run", "--for", "inf"], "--for: a number of seconds above 0 and at most 31536000, not 'inf'"),
            (["run", "--for", "-5"], "--for: a number of seconds above 0 and at most 31536000, not '-5'"),
            (["run", "--for", "1e300"], "--for: a number of seconds above 0 and at most 31536000, not '1e300'"),
            (render + ["--duration", "1e300"], "--duration: a number of seconds above 0 and at most 604800, not '1e300'"),
            (render + ["--duration", "nan"], "--duration: a number of seconds above 0 and at most 604800, not 'nan'"),
            (render + ["--duration", "0"], "--duration: a number of seconds above 0 and at most 604800, not '0'"),
            (api + ["--cache-size", "99999999999999G"], "--cache-size: a size like 64M from 1M to 1024G, not '99999999999999G'"),
            (api + ["--cache-size", "9223372036854775807"], "--cache-size: a size like 64M from 1M to 1024G, not '9223372036854775807'"),
            (api + ["--cache-size", "-1"], "--cache-size: a size like 64M from 1M to 1024G, not '-1'"),
        ]
        for (arguments, says) in cases {
            let outcome = try playola(arguments)
            XCTAssertTrue(outcome.exited, "\(arguments): killed by a signal")
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.error)")
            XCTAssertTrue(outcome.error.contains(says), "\(arguments): \(outcome.error)")
        }
    }

    /// `--for 5000` is 5000 seconds; it used to trap converting 5e9 µs to usleep's UInt32 as the service started.
    func testRunForALongTimeRunsInsteadOfTrapping() throws {
        let service = try ServiceTests.Service()
        service.extraArguments = ["--for", "5000"]
        try service.start()
        defer { service.stopProcess() }
        let socket = service.folder + "/control.sock"
        XCTAssertEqual(try playola(["status", "--socket", socket]).status, 0)
        usleep(500_000)
        XCTAssertEqual(service.process?.isRunning, true)

        // `play --ago` beyond the timeshift range is refused by name, and the service lives on to answer.
        let ago = try playola(["play", "--ago", "9999999999999h", "--json", "--socket", socket])
        XCTAssertEqual(ago.status, 1)
        XCTAssertTrue(ago.out.contains("--ago: a duration like 1h, 15m or 90s, at most 30d, not '9999999999999h'"), ago.out)
        let endless = try playola(["play", "--ago", String(repeating: "9", count: 400) + "h", "--json", "--socket", socket])
        XCTAssertEqual(endless.status, 1, endless.out)
        XCTAssertEqual(try playola(["status", "--socket", socket]).status, 0)
        XCTAssertEqual(service.process?.isRunning, true)
    }

    // MARK: INI

    func testININumbersOutOfRangeAreErrorsNamingTheKeyAndRange() throws {
        let cases: [(line: String, says: String?)] = [
            ("timeshift = -9223372036854775807h", "timeshift must look like -3h, -15m or -90s, at most 30d back"),
            ("timeshift = -721h", "timeshift must look like -3h, -15m or -90s, at most 30d back"),
            ("timeshift = -99999999999999999999999s", "timeshift must look like"),
            ("timeshift = -720h", nil),
        ]
        for (line, says) in cases {
            let path = directory + "/shift.ini"
            try "[station news]\ntype = playola\nid = abc\n\(line)\n".write(toFile: path, atomically: true, encoding: .utf8)
            let outcome = try playola(["check-config", path])
            XCTAssertTrue(outcome.exited, line)
            let text = outcome.out + outcome.error
            if let says {
                XCTAssertNotEqual(outcome.status, 0, "\(line): \(text)")
                XCTAssertTrue(text.contains("\(path):4: error: \(says)"), "\(line): \(text)")
            } else {
                XCTAssertFalse(text.contains("error"), "\(line): \(text)")
            }
        }
        let player: [(line: String, says: String)] = [
            ("[cache]\nsize = 99999999999999G", "size must be a number of bytes"),
            ("[cache]\nsize = 2048G", "cache size 2048G is too large: at most 1024G"),
            ("[player]\nidle_close = 99999999999999999999999999d", "idle_close must be a duration like 10m, 90s or 1h up to 1d, or never"),
            ("[player]\nidle_close = 2d", "idle_close must be a duration like 10m, 90s or 1h up to 1d, or never"),
            ("[player]\nvolume = 18446744073709551617", "volume must be a whole number from 0 to 100"),
        ]
        for (section, says) in player {
            let path = directory + "/other.ini"
            try "\(section)\n[station demo]\ntype = local\npath = /srv/demo\n".write(toFile: path, atomically: true, encoding: .utf8)
            let (config, diagnostics) = ApplianceConfig.load(path: path)
            XCTAssertNil(config, section)
            XCTAssertTrue(diagnostics.contains { $0.severity == .error && $0.description.contains(says) }, "\(section): \(diagnostics)")
        }
    }

    // MARK: schedules

    private func spin(_ id: String, durationMS: String = "2000", endMS: String = "2000", atMS: String = "1500",
                      toVolume: String = "0", startingVolume: String = "1", airtime: String = "2026-01-01T00:00:00.000Z",
                      file: String = "tone.wav") -> String {
        """
        {"id":"\(id)","stationId":"s","airtime":"\(airtime)","startingVolume":\(startingVolume),
         "fades":[{"atMS":\(atMS),"toVolume":\(toVolume)}],
         "audioBlock":{"id":"\(id)","title":"\(id)","artist":"a","durationMS":\(durationMS),"endOfMessageMS":\(endMS),
                       "downloadUrl":"http://x/\(file)"}}
        """
    }

    func testScheduleNumbersAreRefusedByNameOrClampedAndTheRestPlays() throws {
        let refused: [(json: String, field: String)] = [
            (spin("huge", durationMS: "200000000000000"), "audioBlock.durationMS"),
            (spin("negative", durationMS: "-1"), "audioBlock.durationMS"),
            (spin("unrepresentable", durationMS: "1e300"), "audioBlock.durationMS"),
            (spin("end", endMS: "9223372036854775807"), "audioBlock.endOfMessageMS"),
            (spin("year", airtime: "99999-01-01T00:00:00Z"), "airtime"),
        ]
        let clamped = [
            spin("late-fade", atMS: "9223372036854775807", toVolume: "0.5"),
            spin("blast", atMS: "-9223372036854775808", toVolume: "1e39", startingVolume: "-7"),
            spin("fractional", atMS: "1e300", toVolume: "-1e300", startingVolume: "1e-300"),
        ]
        let json = "[" + (refused.map(\.json) + clamped).joined(separator: ",") + "]"
        let (schedule, dropped) = try Schedule.decode(Data(json.utf8))
        XCTAssertEqual(schedule.spins.map(\.id).sorted(), ["blast", "fractional", "late-fade"])
        for (index, (_, field)) in refused.enumerated() {
            XCTAssertEqual(dropped.filter { $0.field == field }.count, field == "audioBlock.durationMS" ? 3 : 1, "case \(index): \(dropped)")
        }
        let late = try XCTUnwrap(schedule.spins.first { $0.id == "late-fade" })
        XCTAssertEqual(late.fades.first?.atMS, AudioBlock.maximumMS)
        let blast = try XCTUnwrap(schedule.spins.first { $0.id == "blast" })
        XCTAssertEqual(blast.startingVolume, 0)
        XCTAssertEqual(blast.fades.first?.atMS, 0)
        XCTAssertEqual(blast.fades.first?.toVolume, 1)
        let fractional = try XCTUnwrap(schedule.spins.first { $0.id == "fractional" })
        XCTAssertEqual(fractional.fades.first?.atMS, AudioBlock.maximumMS)
        XCTAssertEqual(fractional.fades.first?.toVolume, 0)
        XCTAssertEqual(dropped.first { $0.spin == "huge" }?.reason, "200000000000000 is not a whole number of ms in 0...86400000")

        // Too many spins: the earliest 5000 are kept, the rest named once.
        let many = "[" + (0..<6000).map { spin("m\($0)") }.joined(separator: ",") + "]"
        let (bounded, excess) = try Schedule.decode(Data(many.utf8))
        XCTAssertEqual(bounded.spins.count, Schedule.maximumSpins)
        XCTAssertEqual(excess.map(\.description), ["dropped spin 1000 spins from m5000 on: (schedule): a schedule holds at most 5000 spins; the earliest are kept"])
    }

    /// The hostile spins and a good one in one schedule, rendered by the real binary through the mixer (the
    /// render thread's code): the good spin sounds, the bad ones are named, nothing traps.
    func testAScheduleWithHostileNumbersRendersTheGoodSpin() throws {
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t)|0.5*sin(2*PI*1000*t):s=48000:d=2",
                               directory + "/media/tone.wav"])
        // A WAV whose header claims 1 Hz (0.5 MB of data): a voice would size its resampler buffers by it.
        var wav = Data("RIFF".utf8) + le32(36 + 524_288) + Data("WAVEfmt ".utf8) + le32(16)
        wav += le16(1) + le16(2) + le32(1) + le32(4) + le16(4) + le16(16) + Data("data".utf8) + le32(524_288)
        wav += Data(count: 524_288)
        try wav.write(to: URL(fileURLWithPath: directory + "/media/onehz.wav"))
        let json = "[" + [
            spin("huge", durationMS: "200000000000000"),
            spin("one-hertz", file: "onehz.wav"),
            spin("fade-at-max", atMS: "9223372036854775807", toVolume: "0.5", airtime: "2026-01-01T00:00:00.000Z"),
        ].joined(separator: ",") + "]"
        try json.write(toFile: directory + "/schedule.json", atomically: true, encoding: .utf8)
        let outcome = try playola(["render", "--schedule", directory + "/schedule.json", "--media", directory + "/media",
                                   "--from", "2026-01-01T00:00:00Z", "--duration", "3", "--out", directory + "/out.wav"])
        XCTAssertTrue(outcome.exited)
        XCTAssertEqual(outcome.status, 0, outcome.error)
        XCTAssertTrue(outcome.error.contains("dropped spin huge: audioBlock.durationMS: 200000000000000 is not a whole number of ms in 0...86400000"), outcome.error)
        XCTAssertTrue(outcome.out.contains("start fade-at-max"), outcome.out)
        XCTAssertTrue(outcome.out.contains("error one-hertz \"one-hertz\" by a — \(directory)/media/onehz.wav: invalid file: sample rate: 1 Hz is outside 4000–384000 Hz"), outcome.out)
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/out.wav"))
        let header = try XCTUnwrap(data.range(of: Data("data".utf8))).upperBound + 4
        let samples = data[header...].withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let left = stride(from: 0, to: min(samples.count, 48000 * 2 * 2), by: 2).map { Float(samples[$0]) / 32767 }
        XCTAssertEqual(amplitudeOf(1000, left, 24000), 0.5, accuracy: 0.02,
                       "the spin with an Int64.max fade plays at full volume (its fade is past its end)")
        XCTAssertEqual(amplitudeOf(1000, left, 72000), 0.5, accuracy: 0.02)
    }

    /// 5000 spins at the same airtime (a schedule's maximum) in the live engine: 16 voices are placed, the
    /// rest reported once per pass without their files being opened, and memory stays bounded.
    func testThousandsOfOverlappingSpinsPlaceAtMostSixteenVoices() throws {
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t)|0.5*sin(2*PI*1000*t):s=48000:d=4",
                               directory + "/media/tone.wav"])
        let events = EventLog()
        let opened = EventLog()
        let engine = LiveEngine(sink: RealTimePacer(NullSink(sampleRate: 48000)), clock: SystemClock(),
                                report: { events.add($0.kind == .error ? $0.detail : $0.kind.rawValue) },
                                openFile: { path throws(AudioDecoderError) in
                                    opened.add(path)
                                    return try openAudioFile(path: path)
                                })
        let residentBefore = residentBytes()
        engine.start()
        defer { engine.shutdown() }
        let now = Date()
        let block = AudioBlock(id: "t", title: "t", artist: "", durationMS: 4000, endOfMessageMS: 4000, downloadURL: nil)
        engine.setProgram((0..<Schedule.maximumSpins).map {
            ProgramEntry(spin: Spin(id: "s\($0)", stationID: "x", airtime: now, startingVolume: 1, fades: [], audioBlock: block),
                         file: directory + "/media/tone.wav")
        })
        usleep(1_500_000)
        let said = events.all
        XCTAssertEqual(opened.all.count, VoiceSlots.defaultCapacity, "files opened")
        XCTAssertEqual(said.filter { $0 == "start" || $0 == "join" }.count, VoiceSlots.defaultCapacity)
        XCTAssertEqual(said.filter { $0.hasPrefix("too many overlapping spins") },
                       ["too many overlapping spins: \(Schedule.maximumSpins - VoiceSlots.defaultCapacity) not played (at most 16 at once)"])
        let grown = residentBytes() - residentBefore
        XCTAssertLessThan(grown, 200 << 20, "resident memory grew by \(grown >> 20) MB")
    }

    private func le32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
    private func le16(_ value: UInt16) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }

    private func residentBytes() -> Int {
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// Strings collected from the engine's threads.
final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}
