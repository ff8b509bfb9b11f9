import XCTest
@testable import PlayolaControl

/// Issue 32, item 6: `playola status`'s line for the fleet's link.
final class FleetStatusTextTests: XCTestCase {
    func testTheLinkIsSaidAsConnectedConnectingOrWhyNot() {
        let broker = "mqtts://broker.example.net:8883"
        XCTAssertEqual(StatusText.fleet(FleetStatus(broker: broker, connected: true)), "connected to \(broker)")
        XCTAssertEqual(StatusText.fleet(FleetStatus(broker: broker, connected: false)), "connecting to \(broker)")
        XCTAssertEqual(StatusText.fleet(FleetStatus(broker: broker, connected: false, problem: "connect to broker.example.net:8883: Connection refused")),
                       "cannot reach broker \(broker): connect to broker.example.net:8883: Connection refused")
    }
}
