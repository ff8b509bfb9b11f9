import Foundation
@testable import PlayolaConfig
import XCTest

/// Buttons and LEDs against the pins a DAC HAT takes, as `config.txt` sets it up.
final class SoundCardPinsTests: XCTestCase {
    private let demo = "[station demo]\ntype = local\npath = /tmp\n"
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    private func warnings(_ ini: String, configTxt: String?) -> [String] {
        let boot = configTxt.map { BootConfigText(path: "/boot/firmware/config.txt", text: $0) }
        return ApplianceConfig.load(bytes: Array(ini.utf8), file: "FILE", bootConfig: boot).diagnostics.map(\.description)
    }

    func testTheSampleINILeavesEveryDACsPinsFree() throws {
        let sample = try String(contentsOfFile: Self.repository + "/etc/playola.ini", encoding: .utf8)
        // The image's own config.txt part, each overlay it lists switched on in turn.
        let custom = try String(contentsOfFile: Self.repository + "/image/rpi/raspi-firmware-custom", encoding: .utf8)
        let overlays = custom.split(separator: "\n").filter { $0.hasPrefix("#dtoverlay=") || $0.hasPrefix("#dtparam=") }
        XCTAssertEqual(overlays.count, 4, "the image lists its sound cards' lines")
        for overlay in overlays {
            let configTxt = custom.replacingOccurrences(of: String(overlay), with: String(overlay.dropFirst()))
            let said = warnings(sample, configTxt: configTxt).filter { $0.contains("sound card") }
            XCTAssertEqual(said, [], "\(overlay.dropFirst())")
        }
    }

    func testALineOnAnI2SOrI2CPinIsWarnedAboutWithWhatTakesIt() {
        let ini = "[gpio]\nchip = gpiochip0\nnext_station = GPIO19\nstop = 3\ninterrupt = GPIO22\n" + demo
        XCTAssertEqual(warnings(ini, configTxt: "# a comment\ndtoverlay=hifiberry-dacplus,slave\n"), [
            "FILE:3: warning: GPIO19 is taken by the sound card: dtoverlay=hifiberry-dacplus,slave "
                + "(/boot/firmware/config.txt:2) uses GPIO18-21 for I2S; wire this to a free pin",
            "FILE:4: warning: GPIO3 is taken by the sound card: dtoverlay=hifiberry-dacplus,slave "
                + "(/boot/firmware/config.txt:2) uses GPIO2 and GPIO3 for I2C; wire this to a free pin",
        ])
        // A PCM5102A board has no I2C: GPIO3 is free there.
        XCTAssertEqual(warnings(ini, configTxt: "dtoverlay=hifiberry-dac\n").count, 1)
        XCTAssertEqual(warnings(ini, configTxt: "dtparam=i2s=on\n").count, 1)
    }

    func testNoCardNoCommentedCardAndAnotherChipWarnNothing() {
        let ini = "[gpio]\nchip = gpiochip4\nnext_station = 19\n[led]\nstatus = GPIO18\n" + demo
        XCTAssertEqual(warnings(ini, configTxt: nil), [])
        XCTAssertEqual(warnings(ini, configTxt: "#dtoverlay=hifiberry-dac\ndtparam=audio=on\n"), [])
        // Offset 19 on another chip (an expander) is not the Pi's GPIO19; the LED's name still is.
        XCTAssertEqual(warnings(ini, configTxt: "dtoverlay=hifiberry-dac\n").map { $0.prefix(25) }, ["FILE:5: warning: GPIO18 i"])
    }
}
