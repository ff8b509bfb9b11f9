import Foundation
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
@testable import PlayolaGPIO
import XCTest

/// Issue 12: text from outside cannot forge journal lines. journald reads the service's standard error a
/// line at a time and takes a leading `<N>` as the line's priority, so a title holding `\n<0>` would
/// otherwise log an emergency.
final class LogSanitisingTests: XCTestCase {
    func testControlCharactersAreEscaped() {
        XCTAssertEqual(LogField.escaped("plain title – ünïcode"), "plain title – ünïcode")
        XCTAssertEqual(LogField.escaped("A\n<0>forged"), #"A\n<0>forged"#)
        XCTAssertEqual(LogField.escaped("a\r\tb\u{1B}[31mc\u{7F}\u{85}d\u{2028}e"), #"a\r\tb\u{1b}[31mc\u{7f}\u{85}d\u{2028}e"#)
        XCTAssertEqual(LogField.escaped(#"back\slash\n"#), #"back\\slash\\n"#, "a literal backslash-n stays distinguishable from an escaped newline")
    }

    /// Issue 26: a line of kilobytes (a local file's tag, a server's error) is cut to the longest line.
    func testALongLineIsCut() {
        let cut = String(repeating: "é", count: 300_000).cut(to: Log.maxLine)
        XCTAssertEqual(cut.count, Log.maxLine)
        XCTAssertTrue(cut.hasSuffix("…"))
        XCTAssertEqual("short".cut(to: Log.maxLine), "short")
    }

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
