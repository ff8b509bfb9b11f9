import CGPIO
import Foundation
import XCTest
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaGPIO

final class GPIOChipTests: XCTestCase {
    func testARealChip() throws {
        guard FileManager.default.fileExists(atPath: "/dev/gpiochip0") else {
            throw XCTSkip("no GPIO chip on this machine: /dev/gpiochip0 does not exist")
        }
        let chip = try GPIOChip("gpiochip0")
        XCTAssertEqual(chip.name, "gpiochip0")
        XCTAssertGreaterThan(chip.info.lines, 0)
        let lines = chip.lines()
        XCTAssertEqual(lines.map(\.offset), Array(0..<chip.info.lines))
        XCTAssertTrue(GPIOChip.all().contains(chip.info))
        // The same chip by path, by number and by label.
        XCTAssertEqual(try GPIOChip("/dev/gpiochip0").info, chip.info)
        XCTAssertEqual(try GPIOChip("0").info, chip.info)
        if !chip.info.label.isEmpty, GPIOChip.all().filter({ $0.label == chip.info.label }).count == 1 {
            XCTAssertEqual(try GPIOChip(chip.info.label).info, chip.info)
        }
        if let named = lines.first(where: { !$0.name.isEmpty }) {
            XCTAssertEqual(chip.offset(ofLine: named.name), named.offset)
        }
    }

    func testAMissingChipListsTheChipsThereAre() {
        XCTAssertEqual(cgpio_api_version(), 1, "Debian 12 ships libgpiod 1.6")
        XCTAssertThrowsError(try GPIOChip("gpiochip99")) { error in
            XCTAssertEqual(error as? GPIOError, .noChip("gpiochip99", chips: GPIOChip.all()))
            XCTAssertTrue("\(error)".hasPrefix("no chip 'gpiochip99'; "), "\(error)")
        }
        XCTAssertThrowsError(try LibgpiodLineSource(chip: nil, inputs: [.name("GPIO99")], outputs: [], bias: .pullUp)) { error in
            XCTAssertEqual(error as? GPIOError, .noLine("GPIO99", chip: nil, chips: GPIOChip.all()))
        }
    }

    func testMessages() {
        let chips = [GPIOChipInfo(name: "gpiochip0", label: "pinctrl-bcm2711", lines: 58),
                     GPIOChipInfo(name: "gpiochip1", label: "raspberrypi-exp-gpio", lines: 8)]
        XCTAssertEqual(GPIOError.noChip("gpiochip9", chips: chips).description,
                       "no chip 'gpiochip9'; chips: gpiochip0 [pinctrl-bcm2711] (58 lines), gpiochip1 [raspberrypi-exp-gpio] (8 lines)")
        XCTAssertEqual(GPIOError.noChip("gpiochip9", chips: []).description, "no chip 'gpiochip9'; this machine has no GPIO chips")
        XCTAssertEqual(GPIOError.lineBusy(name: "GPIO17", offset: 17, chip: "gpiochip0", consumer: "gpiomon").description,
                       "line GPIO17 is busy (held by 'gpiomon')")
        XCTAssertEqual(GPIOError.lineBusy(name: "", offset: 5, chip: "gpiochip1", consumer: "").description,
                       "line 5 of gpiochip1 is busy (held by a consumer without a name)")
        XCTAssertEqual(GPIOError.noLine("GPIO99", chip: "gpiochip0", chips: Array(chips.prefix(1))).description,
                       "no line named 'GPIO99' on gpiochip0 (see gpioinfo); chips: gpiochip0 [pinctrl-bcm2711] (58 lines)")
        XCTAssertEqual(GPIOError.offsetOutOfRange(60, chip: chips[0]).description,
                       "there is no line 60 on gpiochip0: it has 58 lines, 0 to 57")
        XCTAssertEqual(GPIOError.requestFailed(offsets: [17, 27], chip: "gpiochip0", errno: EINVAL).description,
                       "cannot request lines 17, 27 of gpiochip0: Invalid argument")
        XCTAssertEqual(GPIOError.chipUnavailable("gpiochip0", errno: EACCES).description,
                       "cannot open chip 'gpiochip0': Permission denied "
                       + "(the service user needs access to /dev/gpiochip*, usually through group gpio)")
    }
}
