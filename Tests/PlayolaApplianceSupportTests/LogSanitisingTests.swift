import Foundation
@testable import PlayolaApplianceSupport
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
}
