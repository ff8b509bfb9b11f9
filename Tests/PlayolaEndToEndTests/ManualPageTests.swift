import Foundation
import XCTest
import PlayolaTestSupport
@testable import PlayolaAppliance
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
@testable import PlayolaControl
@testable import PlayolaGPIO

/// Issue 17, "must be shown" 4: the manual pages cannot drift from the code. playola.ini(5) is made from
/// etc/playola.ini by man/ini-to-man.awk (as `make install` makes it); every key and section the validator
/// knows is documented there, and nothing else is. playola(1) documents every command `playola --help` lists.
final class ManualPageTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// `tool arguments…` → its standard output; fails the test on a non-zero exit or anything on standard error.
    func output(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        let error = Pipe()
        process.standardOutput = out
        process.standardError = error
        try process.run()
        let said = out.fileHandleForReading.readDataToEndOfFile()
        let complained = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool): \(complained)")
        XCTAssertEqual(complained, "", "\(tool) \(arguments.joined(separator: " "))")
        return String(decoding: said, as: UTF8.self)
    }

    func testEveryKeyTheValidatorKnowsIsInPlayolaIni5AndNoOther() throws {
        let page = try output("awk", ["-v", "version=test", "-f", Self.repository + "/man/ini-to-man.awk", Self.repository + "/etc/playola.ini"])
        // `\fBkey\fR = \fIvalue\fR` entries, under `.SS [section]` headings.
        var documented: [String: Set<String>] = [:]
        var section = ""
        for line in page.split(separator: "\n").map(String.init) {
            if line.hasPrefix(".SS [") {
                section = String(line.dropFirst(5).dropLast())
                if section.hasPrefix("station ") { section = "station" }
            } else if line.hasPrefix("\\fB"), let end = line.range(of: "\\fR = ") {
                var key = String(line[line.index(line.startIndex, offsetBy: 3)..<end.lowerBound])
                if key.hasPrefix("station ") { key = "station NAME" } // a [gpio] button for one station
                documented[section, default: []].insert(key)
            }
        }
        let known: [String: [String]] = [
            "player": ConfigValidator.playerKeys, "service": ConfigValidator.serviceKeys, "cache": ConfigValidator.cacheKeys,
            "playola": ConfigValidator.playolaKeys, "gpio": ConfigValidator.gpioKeys + ["station NAME"],
            "led": ConfigValidator.ledKeys, "log": ConfigValidator.logKeys, "network": NetworkSettings.keys,
            "update": ConfigValidator.updateKeys, "fleet": FleetSettings.keys,
            "station": ConfigValidator.stationKeys,
        ]
        XCTAssertEqual(Set(documented.keys), Set(ConfigValidator.sectionNames + ["station"]), "the sections")
        for (section, keys) in known {
            XCTAssertEqual(documented[section] ?? [], Set(keys), "[\(section)]: the page's keys against the validator's")
        }
        let count = known.values.map(\.count).reduce(0, +)
        print("playola.ini(5) documents all \(count) keys of \(known.count) sections the validator knows")
    }

    func testPlayola1DocumentsEveryCommandAndClientOption() throws {
        let help = try PlayolaRun(["--help"]).out
        let listed = help.components(separatedBy: "commands:\n").last?.components(separatedBy: "\n\n").first ?? ""
        var commands: [String] = []
        // "  next, previous     the next…": the names, up to the first word not followed by a comma.
        for line in listed.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            for word in line.split(separator: " ") {
                commands.append(String(word.hasSuffix(",") ? word.dropLast() : word))
                if !word.hasSuffix(",") { break }
            }
        }
        XCTAssertEqual(Set(commands), ["run", "status", "play", "next", "previous", "stop", "pause", "resume", "volume", "bass", "treble",
                                       "check-config", "network-config", "render", "update", "version"], help)
        let source = try String(contentsOfFile: Self.repository + "/man/playola.1", encoding: .utf8)
        let text = try output("man", ["--warnings", "-l", Self.repository + "/man/playola.1"], environment: ["MANWIDTH": "200"])
        let section = text.components(separatedBy: "\nCOMMANDS\n").last?.components(separatedBy: "\nOPTIONS\n").first ?? ""
        for command in commands {
            XCTAssertTrue(section.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(command) }
                          || section.contains(", \(command)"), "playola(1) COMMANDS has no entry for \(command)")
        }
        for option in ["--json", "--socket", "--config", "--last-good", "--ago", "--output", "--fallback", "--for"] {
            XCTAssertTrue(source.contains(option.replacingOccurrences(of: "-", with: "\\-")), "playola(1) lacks \(option)")
        }
        XCTAssertTrue(text.contains("EXIT STATUS"))
    }
}
