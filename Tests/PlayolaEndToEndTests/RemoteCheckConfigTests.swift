import Foundation
import PlayolaTestSupport
import XCTest

/// `[remote]` through `playola check-config`, as an owner runs it.
final class RemoteCheckConfigTests: XCTestCase {
    /// `playola check-config` itself: the file, the line and why, and exit status 1.
    func testCheckConfigRefusesAShortPasswordNamingFileAndLine() throws {
        let path = Fixtures.temporaryDirectory("remote-check") + "/playola.ini"
        try ("[remote]\nlisten = lan\npassword = tooshort\n" + "[station demo]\ntype = local\npath = /tmp\n").write(toFile: path, atomically: false, encoding: .utf8)
        let run = try PlayolaRun(["check-config", path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.error, "\(path):3: error: password must be at least 12 characters, not 8: a shorter one can be guessed by anyone on the network\n")
        XCTAssertFalse(run.error.contains("tooshort"))
    }
}
