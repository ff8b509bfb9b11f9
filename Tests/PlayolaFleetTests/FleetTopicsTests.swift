import XCTest
@testable import PlayolaFleet

final class FleetTopicsTests: XCTestCase {
    func testTheBoxSubscribesToItsOwnCommandsAndItsGroupsOnly() {
        let topics = FleetTopics(prefix: "playola", device: "A1B2", groups: ["lobby", "floor-2"])
        XCTAssertEqual(topics.status, "playola/A1B2/status")
        XCTAssertEqual(topics.online, "playola/A1B2/online")
        XCTAssertEqual(topics.reply, "playola/A1B2/reply")
        XCTAssertEqual(topics.subscriptions, ["playola/A1B2/cmd", "playola/group/lobby/cmd", "playola/group/floor-2/cmd"])
        XCTAssertFalse(topics.subscriptions.contains { $0.contains("+") || $0.contains("#") })
        XCTAssertTrue(topics.isCommand("playola/group/lobby/cmd"))
        XCTAssertFalse(topics.isCommand("playola/group/cellar/cmd"))
        XCTAssertFalse(topics.isCommand("playola/OTHER/cmd"))
        XCTAssertFalse(topics.isCommand("playola/A1B2/status"))
    }
}
