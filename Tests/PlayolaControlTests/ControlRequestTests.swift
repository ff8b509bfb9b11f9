import Foundation
import XCTest
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl

/// Issue 14: the control protocol's requests are one Codable type shared by the client (which sends JSON)
/// and the service (which also reads the words a person types into the socket).
final class ControlRequestTests: XCTestCase {
    func request(_ words: String...) throws -> ControlRequest { try ControlRequest(words: words) }

    func testWordsAreReadAsTheCommandsTheyName() throws {
        XCTAssertEqual(try request("status"), .status)
        XCTAssertEqual(try request("play"), .play(station: nil, ago: nil))
        XCTAssertEqual(try request("play", "porch", "--ago", "1h"), .play(station: "porch", ago: "1h"))
        XCTAssertEqual(try request("play", "--ago", "15m", "porch"), .play(station: "porch", ago: "15m"))
        XCTAssertEqual(try request("volume", "55"), .volume(percent: 55))
        XCTAssertEqual(try request("volume", "300"), .volume(percent: 300), "the range is the service's to refuse")
        XCTAssertEqual(try request("audio-device", "add"), .audioDevice, "udev's rule adds its action")
        for (words, says) in [(["volume", "loud"], "volume takes a percentage from 0 to 100"), (["volume"], "volume takes a percentage from 0 to 100"),
                              (["frobnicate"], "unknown command 'frobnicate'; commands: \(ControlRequest.list)"),
                              (["status", "--bogus"], "status takes no arguments, not '--bogus'"), (["stop", "now"], "stop takes no arguments, not 'now'"),
                              (["play", "a", "b"], "play takes one station, not 'b' too"), (["play", "porch", "--ago"], "--ago needs a duration, like 1h"),
                              (["audio-device", "add", "more"], "audio-device takes at most the udev action, not 'more'"),
                              (["bass", "1", "2"], "bass takes a gain in dB from -12 to 12")] {
            XCTAssertThrowsError(try ControlRequest(words: words)) { XCTAssertEqual("\($0)", says) }
        }
    }

    func testTheClientsJSONLineComesBackAsTheSameRequest() throws {
        let hostile = #"x","ok":true,"y"# + "\nstop"
        for original: ControlRequest in [.status, .play(station: hostile, ago: "1h"), .play(station: nil, ago: nil), .next, .previous,
                                         .stop, .pause, .resume, .volume(percent: 40), .audioDevice] {
            let line = original.line
            XCTAssertFalse(line.contains("\n"), "one line: \(line)")
            XCTAssertTrue(line.hasPrefix("{"), line)
            XCTAssertEqual(try ControlRequest(line: line), original, line)
        }
        XCTAssertEqual(try ControlRequest(line: "play porch"), .play(station: "porch", ago: nil), "words still work (socat)")
        XCTAssertThrowsError(try ControlRequest(line: #"{"play":"#)) { XCTAssertEqual("\($0)", #"not a request: {"play":"#) }
        XCTAssertThrowsError(try ControlRequest(line: #"{"eject":{}}"#)) { XCTAssertTrue("\($0)".hasPrefix("not a request"), "\($0)") }
    }

    func testWhichRequestsStartAStation() throws {
        XCTAssertEqual([ControlRequest.status, .play(station: nil, ago: nil), .next, .previous, .stop, .pause, .resume, .volume(percent: 1), .audioDevice]
            .map(\.startsAStation), [false, true, true, true, false, false, true, false, false])
    }
}
