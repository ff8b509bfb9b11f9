@testable import PlayolaAppliance
import XCTest

final class ArgumentsTests: XCTestCase {
    func testOptionsFlagsAndPositionalWords() throws {
        let arguments = try Arguments(["play", "--ago", "1h", "--config=/etc/x.ini", "--verbose", "porch"], valued: ["ago", "config"])
        XCTAssertEqual(arguments.positional, ["play", "porch"])
        XCTAssertEqual(arguments.options, ["ago": "1h", "config": "/etc/x.ini"])
        XCTAssertEqual(arguments.flags, ["verbose"])
        XCTAssertThrowsError(try Arguments(["--ago"], valued: ["ago"]))
        XCTAssertThrowsError(try Arguments(["--colour=red"], valued: ["ago"]))
    }

    func testByteSizes() throws {
        XCTAssertEqual(try parseByteSize("64M", option: "size", range: 1...(1 << 40)), 64 << 20)
        XCTAssertEqual(try parseByteSize("500k", option: "size", range: 1...(1 << 40)), 500 << 10)
        XCTAssertEqual(try parseByteSize("1024", option: "size", range: 1...(1 << 40)), 1024)
        XCTAssertThrowsError(try parseByteSize("lots", option: "size", range: 1...(1 << 40)))
    }
}
