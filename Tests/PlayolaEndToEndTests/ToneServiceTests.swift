import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 16, tone controls through the service: `playola bass` and an INI edited and reloaded (SIGHUP)
/// change the gain at 50 Hz and 10 kHz while a station plays, by what they say, without a gap.
final class ToneServiceTests: XCTestCase {
    /// The level of `frequency` over the newest 100 ms windows of the capture (5 cycles of 50 Hz each).
    func level(_ service: ServiceTests.Service, _ frequency: Double) -> Double {
        let samples = service.recent(0.5)
        guard samples.count >= 4800 * 3 else { return 0 }
        return stride(from: samples.count - 4800 * 3, to: samples.count - 4800 + 1, by: 2400)
            .map { amplitudeOf(frequency, samples, $0, length: 4800) }.reduce(0, +) / 5
    }

    func testBassFromTheClientAndTrebleFromAReloadedINIChangeTheirBandsOnly() throws {
        let service = try ServiceTests.Service()
        defer { service.stopProcess() }
        try FileManager.default.createDirectory(atPath: service.folder + "/both", withIntermediateDirectories: true)
        let wave = "0.2*sin(2*PI*50*t)+0.2*sin(2*PI*10000*t)"
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=\(wave)|\(wave):s=48000:d=90", service.folder + "/both/both.wav"])
        service.extraSections = "[station both]\ntype = local\npath = \(service.folder)/both\n"
        try service.writeConfig(volume: 100)
        try service.start()
        service.clearOfTheLoopsCrossfade(for: 24) // the levels checked from here to the end
        try service.client("play", "both")
        try waitUntil("the station plays", timeout: 10) { abs(level(service, 50) - 0.2) < 0.02 }
        XCTAssertEqual(level(service, 10000), 0.2, accuracy: 0.02, "flat")

        let said = try service.client("bass", "6")
        XCTAssertEqual(said.trimmingCharacters(in: .whitespacesAndNewlines), "Tone: bass +6 dB, treble 0 dB")
        let plus6 = 0.2 * pow(10, 6.0 / 20)
        try waitUntil("bass +6 dB at 50 Hz") { abs(20 * log10(level(service, 50) / plus6)) < 0.5 }
        XCTAssertEqual(20 * log10(level(service, 10000) / 0.2), 0, accuracy: 0.3, "10 kHz untouched by the bass")
        let status = try service.status()
        XCTAssertEqual(status["bass"] as? Double, 6)
        XCTAssertEqual(status["treble"] as? Double, 0)

        // The INI edited (treble -6) and reloaded: the file's settings apply, both of them.
        try service.writeConfig(volume: 100, player: "treble = -6")
        kill(service.process!.processIdentifier, SIGHUP)
        try waitUntil("treble -6 dB at 10 kHz") { abs(20 * log10(level(service, 10000) / (0.2 * pow(10, -6.0 / 20)))) < 0.5 }
        try waitUntil("bass back to the file's 0 dB") { abs(20 * log10(level(service, 50) / 0.2)) < 0.5 }
        let around = service.recent(1.5)
        let quietest = stride(from: 0, to: around.count - 4800, by: 2400).map { amplitudeOf(50, around, $0, length: 4800) }.min() ?? 0
        XCTAssertGreaterThan(quietest, 0.15, "no gap while the tone changed")

        XCTAssertEqual(try service.client("treble", "20"), "", "out of range is refused (on standard error)")
        try service.client("treble", "-3.5")
        XCTAssertEqual(try service.status()["treble"] as? Double, -3.5, "a negative gain is a value, not an option")
    }
}
