import Foundation
import PlayolaTestSupport
import XCTest
@testable import PlayolaApplianceSupport

/// The log's sanitising seen in the running service's own log.
final class LogSanitisingServiceTests: XCTestCase {
    /// The real service plays a local file named with a newline and `<0>`: its now-playing line comes out
    /// as one line, escaped, and no line of the log starts with the forged priority.
    func testAForgedTitleInTheRunningServiceLogsAsOneEscapedLine() throws {
        let service = try ServiceTests.Service()
        service.logPath = service.folder + "/service.log"
        try FileManager.default.moveItem(atPath: service.folder + "/low/low.wav", toPath: service.folder + "/low/low\n<0>forged emergency.wav")
        try service.start()
        defer { service.stopProcess() }
        let deadline = Date().addingTimeInterval(10)
        var log = ""
        while Date() < deadline {
            log = (try? String(contentsOfFile: service.logPath, encoding: .utf8)) ?? ""
            if log.contains("now playing") { break }
            usleep(100_000)
        }
        let lines = log.split(separator: "\n")
        let playing = try XCTUnwrap(lines.first { $0.contains("now playing") }, log)
        XCTAssertEqual(String(playing), #"<6>now playing: "low\n<0>forged emergency""#)
        XCTAssertFalse(lines.contains { $0.hasPrefix("<0>") || $0.hasPrefix("forged") }, log)
    }
}
