import XCTest
@testable import PlayolaConfig

/// `--cache-size 64M` and the like: the INI's spelling of a size, within a range, on the command line.
final class ByteSizeArgumentTests: XCTestCase {
    func testByteSizes() throws {
        XCTAssertEqual(try parseByteSize("64M", option: "size", range: 1...(1 << 40)), 64 << 20)
        XCTAssertEqual(try parseByteSize("500k", option: "size", range: 1...(1 << 40)), 500 << 10)
        XCTAssertEqual(try parseByteSize("1024", option: "size", range: 1...(1 << 40)), 1024)
        XCTAssertThrowsError(try parseByteSize("lots", option: "size", range: 1...(1 << 40)))
    }
}
