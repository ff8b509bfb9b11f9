import Foundation
import PlayolaTestSupport
import XCTest
@testable import PlayolaAppliance

/// `playola check-config`'s exit status: 0 for a config the appliance can start with, 1 for errors, 2 for usage.
final class CheckConfigCommandTests: XCTestCase {
    func testCheckConfigExitStatus() throws {
        let directory = Fixtures.temporaryDirectory("check-config")
        func write(_ text: String) throws -> String {
            let path = directory + "/playola.ini"
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            return path
        }
        XCTAssertEqual(CheckConfigCommand.run([try write("[station demo]\ntype = local\npath = /tmp\n")]), 0)
        XCTAssertEqual(CheckConfigCommand.run([try write("[player]\nvolume = 80\n")]), 1)
        XCTAssertEqual(CheckConfigCommand.run(["a", "b"]), 2)
    }
}
