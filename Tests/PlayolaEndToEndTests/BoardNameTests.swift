import Foundation
import PlayolaTestSupport
import XCTest

/// Issue 29, item 4: `playola network-config` names the box on the network, `[network] hostname` or the board's
/// own `playola-XXXX`, and says when MPD's protocol is to be advertised (`[remote] listen = lan`).
final class BoardNameTests: XCTestCase {
    private let station = "[station demo]\ntype = local\npath = /tmp\n"

    /// The files network-config writes for `ini`, in a folder of their own.
    private func names(_ ini: String) throws -> (run: PlayolaRun, hostname: String?, mdns: String?) {
        let directory = Fixtures.temporaryDirectory("board-name")
        let path = directory + "/playola.ini", out = directory + "/out"
        try ini.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o640)
        let run = try PlayolaRun(["network-config", "--config", path, "--out", out, "--last-good", directory + "/kept/playola.ini"])
        return (run, try? String(contentsOfFile: out + "/hostname", encoding: .utf8), try? String(contentsOfFile: out + "/mdns.env", encoding: .utf8))
    }

    func testTheINIsNameAndTheMPDPortWhileRemoteControlListensOnTheLAN() throws {
        let named = try names("[network]\nhostname = Kitchen-Radio\n[remote]\nlisten = lan\nport = 6601\npassword = a long phrase nobody guesses\n" + station)
        XCTAssertEqual(named.run.status, 0, named.run.error)
        XCTAssertEqual(named.hostname, "kitchen-radio\n")
        XCTAssertEqual(named.mdns, "MPD_PORT=6601\n")
        XCTAssertTrue(named.run.out.contains("name on the network: kitchen-radio.local, MPD's protocol advertised on port 6601"), named.run.out)

        let local = try names("[network]\nhostname = porch\n[remote]\nlisten = localhost\n" + station)
        XCTAssertEqual(local.hostname, "porch\n")
        XCTAssertNil(local.mdns, "listening on 127.0.0.1 only is nothing to advertise")
    }

    /// Without a name in the INI (or without a valid INI at all), the board's: `playola-` and four hex digits.
    func testWithoutANameTheBoardsOwn() throws {
        let unnamed = try names(station)
        let name = try XCTUnwrap(unnamed.hostname)
        XCTAssertNotNil(name.range(of: #"^playola-[0-9a-f]{4}\n$"#, options: .regularExpression), name)
        XCTAssertNil(unnamed.mdns)

        let broken = try names("[network]\nhostname = -kitchen\n" + station)
        XCTAssertEqual(broken.run.status, 1)
        XCTAssertTrue(broken.run.error.contains(":2: error: hostname must be 1 to 63 letters, digits and '-'"), broken.run.error)
        XCTAssertEqual(broken.hostname, name, "no valid configuration: the board's own name, the same at every boot")
    }
}
