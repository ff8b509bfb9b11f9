@testable import PlayolaApplianceSupport
import XCTest

final class ArgumentsTests: XCTestCase {
    func testOptionsFlagsAndPositionalWords() throws {
        let words = ["play", "--ago", "1h", "--config=/etc/x.ini", "--verbose", "porch"]
        let arguments = try Arguments(words, valued: ["ago", "config"], flags: ["verbose"], positionalLimit: 2)
        XCTAssertEqual(arguments.positional, ["play", "porch"])
        XCTAssertEqual(arguments.options, ["ago": "1h", "config": "/etc/x.ini"])
        XCTAssertEqual(arguments.flags, ["verbose"])
        for (words, says) in [(["--ago"], "--ago needs a value"), (["--ago", "--json"], "--ago needs a value"),
                              (["--colour=red"], "unknown option --colour"), (["--verbose"], "unknown option --verbose"),
                              (["porch"], "unexpected 'porch'")] {
            XCTAssertThrowsError(try Arguments(words, valued: ["ago"], flags: ["json"])) { XCTAssertEqual("\($0)", says, "\(words)") }
        }
        XCTAssertThrowsError(try Arguments(words, valued: ["ago", "config"], flags: ["verbose"], positionalLimit: 1)) {
            XCTAssertEqual("\($0)", "unexpected 'porch'")
        }
    }
}
