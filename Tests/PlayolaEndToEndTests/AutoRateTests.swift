import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 15: `rate = auto` (the default) opens the device at 44.1 kHz, the rate of Playola's files, when the
/// device takes it, so they play without resampling; a device that takes only 48 kHz is mixed for at 48 kHz.
/// The service plays a 44.1 kHz local station into alsa-lib's `file` plugin behind `plug` with the rate
/// conversion refused (as the sink asks), so each PCM takes exactly one rate; the capture is analysed at
/// that rate, and `status` says the rate the device was opened at.
final class AutoRateTests: XCTestCase {
    func testAutoOpensA44kDeviceAt44kAndPlaysTheFileUnresampled() throws {
        let run = try play(deviceRate: 44100, configured: "auto")
        XCTAssertEqual(run.status["deviceRate"] as? Int, 44100)
        XCTAssertEqual(run.status["deviceFormat"] as? String, "s16", "the card's own format, asked of the plug first")
        XCTAssertEqual(run.toneHz, 500, accuracy: 5, "the 500 Hz file, heard at the device's 44.1 kHz")
        // Unresampled, each captured sample is the file's own (volume 100, our float → S16: ±1 LSB).
        XCTAssertLessThanOrEqual(run.worstDifferenceFromFile, 1, "no resampler between the file and the device")
    }

    func testAutoMixesAt48kForADeviceThatRefuses44k() throws {
        let run = try play(deviceRate: 48000, configured: nil)
        XCTAssertEqual(run.status["deviceRate"] as? Int, 48000)
        XCTAssertEqual(run.toneHz, 500, accuracy: 5, "the 500 Hz file, resampled to the device's 48 kHz")
        XCTAssertGreaterThan(run.worstDifferenceFromFile, 100, "resampled: the samples are not the file's")
    }

    func testAForcedRateStillWins() throws {
        let run = try play(deviceRate: 48000, configured: "48000")
        XCTAssertEqual(run.status["deviceRate"] as? Int, 48000)
        XCTAssertEqual(run.toneHz, 500, accuracy: 5)
    }

    struct Run {
        var status: [String: Any]
        var toneHz: Double
        /// The largest difference (in 16-bit steps) between the captured left channel and the file's, over a
        /// second of the capture aligned on the file by its first samples.
        var worstDifferenceFromFile: Int
    }

    /// Plays a local station of one 44.1 kHz 500 Hz tone file (`rate` as configured; nil: no `rate` key) into
    /// a PCM that takes only `deviceRate`, for about 3 s; returns the status halfway and the capture's analysis.
    private func play(deviceRate: Int, configured rate: String?) throws -> Run {
        let folder = NSTemporaryDirectory() + "playola-rate-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder + "/music", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/music/tone.wav"
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                               "aevalsrc=0.5*sin(2*PI*500*t)|0.5*sin(2*PI*500*t):s=44100:d=60", "-c:a", "pcm_s16le", file])
        let capture = folder + "/capture.raw"
        try """
        pcm.rate_test {
            type plug
            slave { pcm "rate_paced"; format S16_LE; rate \(deviceRate); channels 2 }
        }
        pcm.rate_paced {
            type file
            slave.pcm "null"
            file "|exec pv -q -B \(deviceRate / 5) -L \(deviceRate * 4) > \(capture)"
            format "raw"
        }
        """.write(toFile: folder + "/asound.conf", atomically: true, encoding: .utf8)
        try ServiceTests.Service.ini(
            folder: folder, player: "station = music\ndevice = rate_test\nvolume = 100\n" + (rate.map { "rate = \($0)" } ?? ""),
            stations: "[station music]\ntype = local\npath = \(folder)/music"
        ).write(toFile: folder + "/playola.ini", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:" + folder + "/asound.conf"
        let playola = Bundle.main.bundleURL.appendingPathComponent("playola")
        let service = Process()
        service.executableURL = playola
        service.arguments = ["run", "--config", folder + "/playola.ini", "--for", "4"]
        service.environment = environment
        service.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try service.run()
        defer { if service.isRunning { service.terminate() }; service.waitUntilExit() }
        let deadline = Date().addingTimeInterval(8)
        var status: [String: Any] = [:]
        while Date() < deadline, status["deviceRate"] == nil {
            usleep(200_000)
            let client = Process()
            client.executableURL = playola
            client.arguments = ["status", "--json", "--socket", folder + "/control.sock"]
            client.environment = environment
            let pipe = Pipe()
            client.standardOutput = pipe
            client.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try client.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            client.waitUntilExit()
            status = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        }
        service.waitUntilExit()
        let left: [Int16] = try Data(contentsOf: URL(fileURLWithPath: capture)).withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            return stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        }
        XCTAssertGreaterThan(left.count, deviceRate * 2, "the device played at least 2 s")
        // The last two seconds: the tone in full (the start ramps in).
        let tail = Array(left.suffix(deviceRate * 2).prefix(deviceRate))
        var crossings = 0
        for index in 1..<tail.count where tail[index - 1] < 0 && tail[index] >= 0 { crossings += 1 }
        // The file's samples (a 500 Hz tone: 441 samples a period at 44.1 kHz) aligned on the capture by the
        // best match over one period.
        let wav = try Data(contentsOf: URL(fileURLWithPath: file))
        let fileLeft: [Int16] = wav.dropFirst(wav.count - 60 * 44100 * 4).withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            return stride(from: 0, to: 44100 * 4, by: 2).map { samples[$0] }
        }
        var worst = Int.max
        for offset in 0..<441 {
            var largest = 0
            for index in 0..<min(tail.count, 44100 * 2 - offset) {
                largest = max(largest, abs(Int(tail[index]) - Int(fileLeft[index + offset])))
                if largest >= worst { break }
            }
            worst = min(worst, largest)
        }
        return Run(status: status, toneHz: Double(crossings), worstDifferenceFromFile: worst)
    }
}
