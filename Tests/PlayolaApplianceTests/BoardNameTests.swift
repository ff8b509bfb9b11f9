import XCTest
@testable import PlayolaAppliance

/// The board's own name: its serial number's last four hex digits, else its first real MAC address's.
final class BoardNameUnitTests: XCTestCase {
    func testTheSerialNumberFirstThenTheFirstInterfacesMAC() {
        let macs = [(interface: "wlan0", address: "b8:27:eb:aa:bb:cc\n"), (interface: "eth0", address: "b8:27:eb:12:34:56\n"),
                    (interface: "lo", address: "00:00:00:00:00:00\n")]
        XCTAssertEqual(BoardName.name(serial: "10000000c0ffee42\0", macs: macs), "playola-ee42")
        XCTAssertEqual(BoardName.name(serial: nil, macs: macs), "playola-3456", "eth0 before wlan0; lo's zeros are no address")
        XCTAssertEqual(BoardName.name(serial: "0000000000000000", macs: macs), "playola-3456", "a serial of zeros is none")
        XCTAssertEqual(BoardName.name(serial: nil, macs: [("lo", "00:00:00:00:00:00")]), "playola")
    }
}
