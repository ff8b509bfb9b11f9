import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 32, "must be shown": boxes (`playola run` processes) on a real mosquitto with TLS, per-box
/// certificates and an ACL; each box's retained status, a group command's fan-out, the broker killed and
/// restarted, a box killed, a box that tries another's topics, refused commands, and the memory the fleet
/// costs. The figures are printed (`fleet figure: …`) for bench/RESULTS.md.
final class FleetTests: XCTestCase {
    static let boxes = 50
    private var stations = ""

    override func setUpWithError() throws {
        stations = NSTemporaryDirectory() + "playola-fleet-stations-\(UUID().uuidString.prefix(8))"
        try FleetBox.makeStations(in: stations)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: stations)
    }

    func figure(_ text: String) { print("fleet figure: \(text)") }

    func testFiftyBoxesPublishFollowAGroupCommandSurviveTheBrokerAndSayWhenOneDies() async throws {
        let broker = try FleetBroker()
        try broker.start()
        let monitor = try FleetMonitor(broker: broker)
        let boxes = try (0..<Self.boxes).map { _ in try FleetBox(stations: stations, broker: broker) }
        let began = Date()
        for box in boxes { try box.start() }
        func status(_ box: FleetBox) -> String { "playola/\(box.deviceID)/status" }

        // Each box's first retained status, within 10 s of its own start.
        let allPublished = try await waitUntil(60) { boxes.allSatisfy { monitor.latest(status($0)) != nil } }
        XCTAssertTrue(allPublished, "boxes without a status: \(boxes.filter { monitor.latest(status($0)) == nil }.count)")
        let firstStatus = boxes.compactMap { box in monitor.first(status(box)).map { $0.at.timeIntervalSince(box.startedAt) } }
        figure("\(Self.boxes) boxes started in \(seconds(Date().timeIntervalSince(began))) (all published); first status after start: "
               + "median \(seconds(median(firstStatus))), slowest \(seconds(firstStatus.max() ?? 0))")
        XCTAssertLessThanOrEqual(firstStatus.max() ?? .infinity, 10)
        let retained = try broker.retained("playola/+/status", expecting: Self.boxes)
        XCTAssertEqual(Set(retained.keys), Set(boxes.map(status)), "every box's status is retained on the broker")
        for payload in retained.values {
            let json = FleetMonitor.json(payload)
            for field in ["state", "station", "volume", "device", "deviceId", "cache", "version", "uptime"] {
                XCTAssertNotNil(json[field], "the status carries \(field): \(payload.prefix(300))")
            }
        }

        // Playing everywhere: then one `next` to the group, and each box's station changes.
        let playing = try await waitUntil(30) {
            boxes.allSatisfy { FleetMonitor.json(monitor.latest(status($0))?.payload ?? "")["state"] as? String == "playing" }
        }
        XCTAssertTrue(playing, "every box plays")
        let before = Dictionary(uniqueKeysWithValues: boxes.map { ($0.deviceID, FleetMonitor.json(monitor.latest(status($0))!.payload)["station"] as? String) })
        XCTAssertTrue(before.values.allSatisfy { $0 == "low" })
        // A quiet moment first: a box that published in the second before waits out the rest of it (the status
        // is paced at one a second), which is the pacing's figure, not the fan-out's.
        let quiet = try await waitUntil(30) {
            !monitor.messages.contains { $0.topic.hasSuffix("/status") && $0.at > Date().addingTimeInterval(-1.5) }
        }
        XCTAssertTrue(quiet)
        let asked = Date()
        XCTAssertEqual(try broker.publish(as: "operator", topic: "playola/group/lobby/cmd", #"{"next":{}}"#), 0)
        // From when the broker handed the command out (the monitor, subscribed to it too, got it then).
        let sent = monitor.first("playola/group/lobby/cmd", since: asked)?.at ?? asked
        func switched(_ box: FleetBox) -> FleetMonitor.Message? {
            monitor.first(status(box), since: sent) { FleetMonitor.json($0)["station"] as? String == "high" }
        }
        let fannedOut = try await waitUntil(20) { boxes.allSatisfy { switched($0) != nil } }
        XCTAssertTrue(fannedOut, "boxes that did not change station: \(boxes.filter { switched($0) == nil }.count)")
        let fanOut = boxes.compactMap { switched($0)?.at.timeIntervalSince(sent) }
        figure("group next: every box's new station on the broker within "
               + "\(seconds(fanOut.max() ?? 0)), median \(seconds(median(fanOut)))")
        XCTAssertLessThanOrEqual(fanOut.max() ?? .infinity, 1)

        // The broker killed and started again (it keeps nothing: no persistence): every box reconnects and
        // publishes its status and online flag again.
        broker.kill()
        usleep(500_000)
        let restarted = Date()
        try broker.start()
        try monitor.restart()
        let back = try await waitUntil(60) {
            boxes.allSatisfy { monitor.latest(status($0), since: restarted) != nil
                && monitor.latest("playola/\($0.deviceID)/online", since: restarted)?.payload == "true" }
        }
        XCTAssertTrue(back, "boxes that did not come back: \(boxes.filter { monitor.latest(status($0), since: restarted) == nil }.count); "
                      + "one's log: \((try? String(contentsOfFile: boxes[0].log, encoding: .utf8))?.suffix(2000) ?? "")")
        let reconnect = boxes.compactMap { monitor.first(status($0), since: restarted)?.at.timeIntervalSince(restarted) }
        figure("broker restarted: every box's status republished within \(seconds(reconnect.max() ?? 0)) of the restart, "
               + "median \(seconds(median(reconnect)))")
        XCTAssertLessThanOrEqual(reconnect.max() ?? .infinity, 15)
        let retainedAgain = try broker.retained("playola/+/status", expecting: Self.boxes)
        XCTAssertEqual(retainedAgain.count, Self.boxes)

        // One box killed: its last will says offline, well within the keep-alive.
        let victim = boxes[7]
        let killed = Date()
        victim.kill()
        let offline = try await waitUntil(20) { monitor.first("playola/\(victim.deviceID)/online", since: killed) { $0 == "false" } != nil }
        XCTAssertTrue(offline, "a killed box shows online=false")
        let saidOffline = monitor.first("playola/\(victim.deviceID)/online", since: killed) { $0 == "false" }?.at.timeIntervalSince(killed) ?? .infinity
        figure("a box killed with SIGKILL: online=false after \(seconds(saidOffline)) (keepalive 5 s)")
        XCTAssertLessThanOrEqual(saidOffline, 5)
        // The others are still online.
        XCTAssertTrue(boxes.filter { $0 !== victim }.allSatisfy { monitor.latest("playola/\($0.deviceID)/online")?.payload == "true" })

        for box in boxes { box.process?.terminate() }
        for box in boxes { box.process?.waitUntilExit() }
        monitor.stop()
    }

    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}
