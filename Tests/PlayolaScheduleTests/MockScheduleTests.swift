import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 2, "must be shown" 3: the reference library's mock schedule, with its URLs mapped to fixture
/// files of the right lengths, renders 35 minutes through the `playola render` command without a gap,
/// and the printed timeline matches its airtimes.
final class MockScheduleTests: XCTestCase {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let mockSchedulePath = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/reference/MockSchedule.json").path

    func testMockScheduleRendersThirtyFiveMinutesWithoutGaps() throws {
        guard FileManager.default.fileExists(atPath: Self.mockSchedulePath) else {
            throw XCTSkip("../shared/reference/MockSchedule.json is not beside this checkout; the mock-schedule render was not run")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.mockSchedulePath))
        let (schedule, dropped) = try Schedule.decode(data)
        XCTAssertEqual(schedule.spins.count, 20)
        XCTAssertEqual(dropped, [])

        // One fixture per spin: a mono tone of its durationMS, in the format its URL names.
        let media = Fixtures.directory + "/mock-schedule"
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        let directory = MediaDirectory(path: media)
        var frequencies: [String: Double] = [:]
        for (index, spin) in schedule.spins.enumerated() {
            let url = try XCTUnwrap(spin.audioBlock.downloadURL)
            let file = directory.file(for: url)
            let codec: Fixtures.Codec = url.hasSuffix(".mp3") ? .mp3 : .m4a
            frequencies[spin.id] = 300 + 100 * Double(index)
            if !FileManager.default.fileExists(atPath: file) {
                let made = try Fixtures.tone(frequencies[spin.id]!, seconds: Double(spin.audioBlock.durationMS) / 1000,
                                             rate: 44100, codec: codec, mono: true)
                try FileManager.default.copyItem(atPath: made, toPath: file)
            }
        }

        let first = schedule.spins[0].airtime
        let origin = first.addingTimeInterval(-2)
        let seconds = 35.0 * 60
        let output = Fixtures.temporaryDirectory("mock") + "/mock.wav"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let printed = try runPlayola([
            "render", "--schedule", Self.mockSchedulePath, "--media", media,
            "--from", PlayolaDate.format(origin), "--duration", String(seconds), "--out", output,
        ])

        // The printed timeline: every spin starts at its airtime, none fails.
        let lines = printed.split(separator: "\n").map(String.init)
        for spin in schedule.spins {
            let start = lines.first { $0.contains(" start ") && $0.contains(spin.id) }
            XCTAssertEqual(start?.split(separator: " ").first.map(String.init), PlayolaDate.format(spin.airtime),
                           "spin \(spin.id) \(spin.audioBlock.title)")
        }
        XCTAssertEqual(lines.filter { $0.contains(" start ") }.count, 20)
        XCTAssertEqual(lines.filter { $0.contains(" error ") }, [])

        // No gap: every 10 ms window where some spin sounds carries at least half the expected level.
        let wav = try WAVFile(path: output)
        XCTAssertEqual(wav.samples.count / 2, Int(seconds * 48000))
        let analysis = SignalAnalysis(samples: wav.left, rate: 48000)
        let window = analysis.window
        var checked = 0
        var gaps: [Double] = []
        for start in stride(from: 2 * 48000, to: wav.samples.count / 2 - window, by: window) {
            let time = origin.addingTimeInterval((Double(start) + Double(window) / 2) / 48000)
            var expectedPower = 0.0
            for spin in schedule.spins {
                let position = time.timeIntervalSince(spin.airtime)
                guard position > 0.005, position < Double(spin.audioBlock.durationMS) / 1000 - 0.025 else { continue }
                let gain = Double(spin.envelope.gain(atMS: position * 1000))
                expectedPower += pow(gain * Fixtures.amplitude, 2) / 2
            }
            guard expectedPower > pow(0.02, 2) / 2 else { continue }
            checked += 1
            if analysis.rms(from: start, count: window) < 0.5 * expectedPower.squareRoot() {
                gaps.append(time.timeIntervalSince(first))
            }
        }
        XCTAssertEqual(gaps.prefix(10), [], "gaps (seconds after the first airtime)")
        XCTAssertGreaterThan(checked, 190_000)
    }
}
