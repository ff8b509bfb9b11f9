import Foundation
import XCTest
import PlayolaTestSupport
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
import PlayolaEngine

/// `playola-report.txt`: what it says (the status lines and the last log lines, bounded) and when the service
/// writes it (once settled after a start, then on a change of what it does, at most once a minute).
final class CardReportTests: XCTestCase {
    func report(_ fields: String) throws -> StatusReport {
        try JSONDecoder().decode(StatusReport.self, from: Data(("{" + StatusJSON.paused + "," + fields + "}").utf8))
    }

    func testTheReportSaysWhatRunsWhatPlaysOrWhyNotAndTheLastLogLines() throws {
        let failed = try report(#""state":"error","station":"porch","lastError":"http://radio.example/live: connection refused""#)
        let log = (1...60).map { "2026-12-05T10:00:\($0 < 10 ? "0" : "")\($0 % 60).000Z <3> line \($0)" }
        let text = CardReport.text(failed, system: "playola 0.2.0, image 0.2.0 from slot B", log: log,
                                   now: try XCTUnwrap(PlayolaDate.parse("2026-12-05T10:01:00Z")))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first, "Playola Appliance: what this box is doing")
        XCTAssertTrue(lines[1].contains("2026-12-05T10:01:00"), lines[1])
        XCTAssertTrue(lines.contains("System:  playola 0.2.0, image 0.2.0 from slot B"), text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("State:") && $0.contains("http://radio.example/live: connection refused") }, text)
        XCTAssertTrue(lines.contains("Station: porch (scheduled spins)"), text)
        XCTAssertTrue(lines.contains("The last 50 log lines (UTC):"), text)
        XCTAssertEqual(lines.filter { $0.contains("<3> line ") }.count, 50, "the last 50, not all 60")
        XCTAssertFalse(text.contains("<3> line 10\n"), "the oldest are left out")
        XCTAssertTrue(text.hasSuffix("<3> line 60\n"))
    }

    func testItIsBoundedWhateverTheLogHolds() throws {
        let playing = try report(#""state":"playing","station":"porch""#)
        let long = Array(repeating: String(repeating: "é", count: 2000), count: 50)
        let text = CardReport.text(playing, system: "playola", log: long)
        XCTAssertLessThanOrEqual(text.utf8.count, CardReport.limit)
        XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.count <= 400 }, "each log line cut")
    }

    func testTheSystemLineNamesTheImageAndTheSlotWhereThereAreSuch() throws {
        let folder = NSTemporaryDirectory() + "playola-card-report-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "ID=debian\nIMAGE_VERSION=\"0.3.0\"\n".write(toFile: folder + "/os-release", atomically: true, encoding: .utf8)
        try "console=ttyAMA0 root=PARTUUID=706c6179-03 rauc.slot=B ro\n".write(toFile: folder + "/cmdline", atomically: true, encoding: .utf8)
        XCTAssertEqual(CardReport.system(osRelease: folder + "/os-release", cmdline: folder + "/cmdline"),
                       "playola \(PlayolaVersion.string), image 0.3.0 from slot B")
        XCTAssertEqual(CardReport.system(osRelease: folder + "/none", cmdline: folder + "/none"), "playola \(PlayolaVersion.string)",
                       "a package install: no image, no slot")
    }

    func testWrittenOnceSettledThenOnChangeAtMostOnceAMinute() throws {
        var schedule = ReportSchedule(started: 1000)
        let loading = ReportSchedule.Key(try report(#""state":"loading","station":"porch""#))
        let playing = ReportSchedule.Key(try report(#""state":"playing","station":"porch","spin":{"title":"A","artist":"B","airtime":"2026-11-30T20:00:00.000Z","position":1}"#))
        let otherSong = ReportSchedule.Key(try report(#""state":"playing","station":"porch","spin":{"title":"C","artist":"D","airtime":"2026-11-30T20:04:00.000Z","position":1}"#))
        let failed = ReportSchedule.Key(try report(#""state":"error","station":"porch","lastError":"connection refused""#))
        XCTAssertFalse(schedule.due(loading, now: 1010), "still starting: not yet")
        XCTAssertTrue(schedule.due(playing, now: 1020), "playing: written")
        XCTAssertFalse(schedule.due(playing, now: 1100), "nothing changed")
        XCTAssertFalse(schedule.due(otherSong, now: 1200), "another song is no change")
        XCTAssertTrue(schedule.due(failed, now: 1300), "an error: written")
        XCTAssertFalse(schedule.due(playing, now: 1330), "within the minute: not yet")
        XCTAssertTrue(schedule.due(playing, now: 1360), "a minute after: written")
        // Ten minutes of play: no write.
        XCTAssertFalse((0..<120).contains { schedule.due(otherSong, now: 1365 + Double($0) * 5) })

        var stuck = ReportSchedule(started: 1000)
        XCTAssertFalse(stuck.due(loading, now: 1059))
        XCTAssertTrue(stuck.due(loading, now: 1060), "a minute without settling: written, saying so")
    }
}
