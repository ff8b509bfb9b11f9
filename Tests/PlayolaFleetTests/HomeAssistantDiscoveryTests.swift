import Foundation
import XCTest
@testable import PlayolaControl
@testable import PlayolaFleet

/// Issue 32, item 5: the discovery configs Home Assistant reads, parsed as it parses them.
final class HomeAssistantDiscoveryTests: XCTestCase {
    let topics = FleetTopics(prefix: "playola", device: "0D9E6C1A-1111-4222-8333-944455556666", groups: ["lobby"])

    func configs() throws -> [String: [String: Any]] {
        let configs = HomeAssistantDiscovery.configs(topics: topics, stations: ["porch", "jazz"])
        return try Dictionary(uniqueKeysWithValues: configs.map { config in
            (config.topic, try XCTUnwrap(JSONSerialization.jsonObject(with: Data(config.payload.utf8)) as? [String: Any]))
        })
    }

    func testEachEntityHasItsTopicTheDeviceAndTheAvailability() throws {
        let configs = try configs()
        let node = topics.device
        XCTAssertEqual(Set(configs.keys), Set(["sensor/\(node)/state", "sensor/\(node)/now_playing", "select/\(node)/station",
                                                "button/\(node)/next", "button/\(node)/stop", "number/\(node)/volume"]
            .map { "homeassistant/\($0)/config" }))
        var uniqueIDs: Set<String> = []
        for (topic, config) in configs {
            XCTAssertEqual(config["availability_topic"] as? String, "playola/\(node)/online", topic)
            XCTAssertEqual(config["payload_available"] as? String, "true")
            XCTAssertEqual(config["payload_not_available"] as? String, "false")
            let device = try XCTUnwrap(config["device"] as? [String: Any], topic)
            XCTAssertEqual(device["identifiers"] as? [String], ["playola-\(node)"])
            XCTAssertEqual(device["manufacturer"] as? String, "Playola")
            XCTAssertNotNil(device["sw_version"] as? String)
            let id = try XCTUnwrap(config["unique_id"] as? String)
            XCTAssertTrue(uniqueIDs.insert(id).inserted, "unique ids differ")
            XCTAssertNotNil(config["name"] as? String)
        }
    }

    func testTheCommandsAreTheControlSocketsOwnRequests() throws {
        let configs = try configs()
        let node = topics.device
        let select = try XCTUnwrap(configs["homeassistant/select/\(node)/station/config"])
        XCTAssertEqual(select["options"] as? [String], ["porch", "jazz"])
        XCTAssertEqual(select["command_topic"] as? String, "playola/\(node)/cmd")
        XCTAssertEqual(select["state_topic"] as? String, "playola/\(node)/status")
        XCTAssertEqual(select["value_template"] as? String, "{{ value_json.station }}")
        // HA fills `{{ value }}` with the option: what it then sends must be a request a box takes.
        let template = try XCTUnwrap(select["command_template"] as? String)
        let sent = template.replacingOccurrences(of: "{{ value }}", with: "jazz")
        XCTAssertEqual(try FleetCommand.parse(Array(sent.utf8)).get(), .play(station: "jazz", ago: nil))

        for (object, request) in [("next", ControlRequest.next), ("stop", .stop)] {
            let button = try XCTUnwrap(configs["homeassistant/button/\(node)/\(object)/config"])
            XCTAssertEqual(button["command_topic"] as? String, "playola/\(node)/cmd")
            let press = try XCTUnwrap(button["payload_press"] as? String)
            XCTAssertEqual(try FleetCommand.parse(Array(press.utf8)).get(), request)
        }

        let volume = try XCTUnwrap(configs["homeassistant/number/\(node)/volume/config"])
        XCTAssertEqual(volume["min"] as? Int, 0)
        XCTAssertEqual(volume["max"] as? Int, 100)
        XCTAssertEqual(volume["value_template"] as? String, "{{ value_json.volume }}")
        let volumeTemplate = try XCTUnwrap(volume["command_template"] as? String)
        let volumeSent = volumeTemplate.replacingOccurrences(of: "{{ value | int }}", with: "35")
        XCTAssertEqual(try FleetCommand.parse(Array(volumeSent.utf8)).get(), .volume(percent: 35))

        for object in ["state", "now_playing"] {
            let sensor = try XCTUnwrap(configs["homeassistant/sensor/\(node)/\(object)/config"])
            XCTAssertEqual(sensor["state_topic"] as? String, "playola/\(node)/status")
            XCTAssertNil(sensor["command_topic"])
        }
    }

    func testANodeIDKeepsOnlyWhatHomeAssistantAllows() {
        XCTAssertEqual(HomeAssistantDiscovery.nodeID("AB-cd_12"), "AB-cd_12")
        XCTAssertEqual(HomeAssistantDiscovery.nodeID("a.b c"), "a_b_c")
    }
}
