import Foundation
import XCTest
@testable import PlayolaControl
@testable import PlayolaFleet

/// Issue 32, item 4: what a box takes from the broker: the control socket's requests that steer the playing,
/// as JSON or words; everything else refused with a reason.
final class FleetCommandTests: XCTestCase {
    func parse(_ text: String) -> Result<ControlRequest, FleetRefusal> { FleetCommand.parse(Array(text.utf8)) }

    func testThePlayingCommandsAreTakenAsJSONAndAsWords() throws {
        let taken: [(String, ControlRequest)] = [
            (#"{"next":{}}"#, .next), ("next", .next), ("previous", .previous), (#"{"stop":{}}"#, .stop), ("pause", .pause),
            ("resume", .resume), ("volume 40", .volume(percent: 40)), (#"{"volume":{"percent":7}}"#, .volume(percent: 7)),
            (#"{"play":{"station":"porch"}}"#, .play(station: "porch", ago: nil)), ("play porch", .play(station: "porch", ago: nil)),
            ("play", .play(station: nil, ago: nil)), ("  next\n", .next), ("{\n  \"next\": {}\n}", .next),
        ]
        for (text, request) in taken { XCTAssertEqual(try parse(text).get(), request, text) }
    }

    func testEverythingElseIsRefusedWithItsReason() {
        let refused: [(String, String)] = [
            ("status", "'status' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            (#"{"status":{}}"#, "'status' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            ("subscribe", "'subscribe' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            ("stations", "'stations' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            ("audio-device add", "'audio-device' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            ("bass 3", "'bass' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            (#"{"treble":{"dB":3}}"#, "'treble' is not a fleet command; fleet commands: \(FleetCommand.allowed)"),
            ("", "the command is empty"),
            ("   ", "the command is empty"),
            ("{bad", "not a request: {bad"),
            (#"{"reboot":{}}"#, #"not a request: {"reboot":{}}"#),
            ("next\u{1B}[2J", "the command holds a control character"),
            ("next please", "next takes no arguments, not 'please'"),
            ("volume loud", "volume takes a percentage from 0 to 100"),
        ]
        for (text, reason) in refused {
            XCTAssertEqual(parse(text), .failure(FleetRefusal(reason)), text)
        }
        XCTAssertEqual(FleetCommand.parse([0xFF, 0xFE]), .failure(FleetRefusal("the command is not UTF-8 text")))
        if case .failure(let refusal) = parse("frobnicate") {
            XCTAssertTrue(refusal.reason.hasPrefix("unknown command 'frobnicate'"), refusal.reason)
        } else {
            XCTFail("an unknown word is refused")
        }
    }

    func testAnOverlongPayloadIsRefusedByItsLengthAsItCame() {
        let long = [UInt8](repeating: UInt8(ascii: "n"), count: FleetCommand.longestPayload + 1)
        XCTAssertEqual(FleetCommand.parse(long), .failure(FleetRefusal("the command is 1025 bytes; at most 1024")))
        // What the client copies is cut; the length it came with is what is said.
        XCTAssertEqual(FleetCommand.parse(long, length: 5_000_000), .failure(FleetRefusal("the command is 5000000 bytes; at most 1024")))
        XCTAssertEqual(try FleetCommand.parse(Array(("volume 40" + String(repeating: " ", count: 1000)).utf8)).get(), .volume(percent: 40))
    }

    /// The volume's range is the controller's, as from the socket; the whitelist lets it through to be refused there.
    func testTheReplyIsOneJSONObjectWithTheCommandCutAndEscaped() throws {
        let reply = FleetReply(ok: false, payload: Array(("next\n" + String(repeating: "x", count: 500)).utf8), topic: "p/D/cmd", error: "why")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reply.line.utf8)) as? [String: Any])
        XCTAssertEqual(object["ok"] as? Bool, false)
        XCTAssertEqual(object["error"] as? String, "why")
        XCTAssertEqual(object["topic"] as? String, "p/D/cmd")
        let command = try XCTUnwrap(object["command"] as? String)
        XCTAssertTrue(command.hasPrefix("next\\n"), command)
        XCTAssertLessThanOrEqual(command.count, FleetReply.shownPayload + 2)
        XCTAssertFalse(reply.line.contains("\n"))
        XCTAssertEqual(FleetReply(ok: true, payload: Array("next".utf8), topic: "t").line, #"{"command":"next","ok":true,"topic":"t"}"#)
    }
}
