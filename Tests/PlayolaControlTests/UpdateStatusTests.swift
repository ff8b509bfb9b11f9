import Foundation
import XCTest
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl

/// The firmware update's line in `playola status`, read from the files the image's update units write.
final class UpdateStatusTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "playola-update-status-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func testTheInstallsProgressWinsOverTheLastOutcomeAndNeitherIsNoLine() throws {
        let running = folder + "/run-status", lasting = folder + "/status"
        XCTAssertNil(UpdateStatus.current(files: [running, lasting]), "no update ever ran")
        try "0.2.0 running from slot B\n".write(toFile: lasting, atomically: true, encoding: .utf8)
        XCTAssertEqual(UpdateStatus.current(files: [running, lasting]), "0.2.0 running from slot B")
        try "installing 43 % (0.3.0)\n".write(toFile: running, atomically: true, encoding: .utf8)
        XCTAssertEqual(UpdateStatus.current(files: [running, lasting]), "installing 43 % (0.3.0)")
        try "\n".write(toFile: running, atomically: true, encoding: .utf8)
        XCTAssertEqual(UpdateStatus.current(files: [running, lasting]), "0.2.0 running from slot B", "an empty line says nothing")
    }

    func testOnlyTheFirstLineCutAndWithoutControlCharacters() throws {
        let path = folder + "/status"
        try Data("0.3.0 rolled back:\u{1B}[2J service\tnot ready\nsecond line\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(UpdateStatus.current(files: [path]), "0.3.0 rolled back: [2J service not ready")
        try Data(repeating: UInt8(ascii: "x"), count: 5000).write(to: URL(fileURLWithPath: path))
        XCTAssertNil(UpdateStatus.current(files: [path]), "a file over 4 KiB is not read")
        try String(repeating: "y", count: 300).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(UpdateStatus.current(files: [path])?.count, UpdateStatus.longest + 1)
    }

    func testTheOwnerIsToldOfAllowOlderAndOfADevelopmentKey() throws {
        let release = folder + "/os-release"
        try "PRETTY_NAME=\"Debian GNU/Linux 13\"\nIMAGE_VERSION=0.2.0\n".write(toFile: release, atomically: true, encoding: .utf8)
        XCTAssertEqual(UpdateStatus.notes(allowOlder: false, osRelease: release), [])
        XCTAssertEqual(UpdateStatus.notes(allowOlder: true, osRelease: release),
                       ["allow_older is set: the next bundle on the card may be older"])
        try "IMAGE_VERSION=0.2.0\nPLAYOLA_UPDATE_KEYS=development\n".write(toFile: release, atomically: true, encoding: .utf8)
        XCTAssertEqual(UpdateStatus.notes(allowOlder: false, osRelease: release), ["this image trusts a development update key"])
        XCTAssertEqual(UpdateStatus.notes(allowOlder: false, osRelease: folder + "/none"), [], "a package install has no such line")
    }

    func testStatusShowsTheLineBeforeTheUptime() throws {
        let json = #"{"# + StatusLinesTests.common + #","deviceAvailable":true,"state":"playing","station":"porch","stationType":"playola","update":"0.3.0 rolled back: service not ready within 300 s"}"#
        let report = try JSONDecoder().decode(StatusReport.self, from: Data(json.utf8))
        XCTAssertEqual(Array(StatusText.lines(report).suffix(2)), [
            "Update:  0.3.0 rolled back: service not ready within 300 s",
            "Uptime:  1:05",
        ])
    }
}
