import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 25, "must be shown": hostile INI files through the real binary's `check-config` and `network-config`.
/// Whatever check-config accepts is written to wpa_supplicant's file exactly as validated (the lines expected
/// are made here from the values the case means, the key by wpa_passphrase); whatever it rejects is not
/// written, nor kept for a later boot, and the error names the file, the line and what is wrong there.
final class HostileINITests: XCTestCase {
    private var directory = ""
    private var runs = 0
    private let station = "[station demo]\ntype = stream\nurl = http://127.0.0.1/\n"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-ini-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private struct Outcome {
        var ini: String
        var check: PlayolaRun
        var network: PlayolaRun
        var written: String?
        var kept: Data?
        var said: String { check.out + check.error + network.out + network.error }
    }

    /// `bytes` as an INI, through check-config and then network-config into a Wi-Fi folder and a kept copy of their own.
    private func run(_ bytes: [UInt8]) throws -> Outcome {
        runs += 1
        let ini = directory + "/case\(runs).ini", out = directory + "/wifi\(runs)", kept = directory + "/kept\(runs)/playola.ini"
        try Data(bytes).write(to: URL(fileURLWithPath: ini))
        let check = try PlayolaRun(["check-config", ini])
        let network = try PlayolaRun(["network-config", "--config", ini, "--out", out, "--last-good", kept])
        return Outcome(ini: ini, check: check, network: network,
                       written: try? String(contentsOfFile: out + "/wpa_supplicant.conf", encoding: .utf8),
                       kept: FileManager.default.contents(atPath: kept))
    }

    private func network(_ lines: String) -> [UInt8] { Array(("[network]\n" + lines + station).utf8) }

    /// wpa_supplicant's file for these values, line by line as the appliance must write it.
    private func expected(from source: String, ssid: String, passphrase: String? = nil, key: String? = nil,
                          country: String? = nil, hidden: Bool = false) throws -> String {
        var lines = ["# Written by playola network-config from \(source) at boot: edit playola.ini on the boot partition.",
                     "ctrl_interface=/run/wpa_supplicant"]
        if let country { lines.append("country=\(country)") }
        lines.append("network={")
        lines.append("    ssid=" + ssid.utf8.map { String(format: "%02x", $0) }.joined())
        if hidden { lines.append("    scan_ssid=1") }
        if let key = try key ?? passphrase.map({ try WPAPassphrase.key(ssid: ssid, passphrase: $0) }) {
            lines += ["    key_mgmt=WPA-PSK WPA-PSK-SHA256", "    ieee80211w=1", "    psk=\(key)"]
        } else {
            lines.append("    key_mgmt=NONE")
        }
        return (lines + ["}"]).joined(separator: "\n") + "\n"
    }

    func testWhatCheckConfigAcceptsIsWrittenExactlyAsValidated() throws {
        let cases: [(name: String, bytes: [UInt8], ssid: String, passphrase: String?, key: String?, country: String?, hidden: Bool)] = [
            ("plain", network("wifi_ssid = Porch\nwifi_psk = correct horse battery staple\nwifi_country = gb\n"),
             "Porch", "correct horse battery staple", nil, "GB", false),
            // dash's echo made new lines of these; here they are the bytes they are.
            ("\\0ooo in every value", network("wifi_ssid = Porch\\012network={\nwifi_psk = pass\\012word\\0123\nwifi_country = GB\nwifi_hidden = yes\n"),
             "Porch\\012network={", "pass\\012word\\0123", nil, "GB", true),
            ("wpa_supplicant's syntax inside values",
             network("wifi_ssid = }network={ssid=\"evil\"\nwifi_psk = x\" ctrl_interface=/tmp GROUP=playola\nwifi_country = US\n"),
             "}network={ssid=\"evil\"", "x\" ctrl_interface=/tmp GROUP=playola", nil, "US", false),
            ("quoted, as wpa_supplicant writes them", network("wifi_ssid = \"Porch Wi-Fi\"\nwifi_psk = \"correct horse\"\nwifi_country = GB\n"),
             "Porch Wi-Fi", "correct horse", nil, "GB", false),
            ("one quote is a character", network("wifi_ssid = \"Porch\nwifi_country = GB\n"), "\"Porch", nil, nil, "GB", false),
            ("a ';' with no blank before it", network("wifi_ssid = Porch\nwifi_psk = correct;horse\nwifi_country = GB\n"),
             "Porch", "correct;horse", nil, "GB", false),
            ("the key in hex", network("wifi_ssid = Porch\nwifi_psk = \(String(repeating: "A1", count: 32))\nwifi_country = GB\n"),
             "Porch", nil, String(repeating: "a1", count: 32), "GB", false),
            ("an open hidden network, no country", network("wifi_ssid = Porch\nwifi_hidden = true\n"), "Porch", nil, nil, nil, true),
            ("32 bytes of UTF-8, a 63-character passphrase, a BOM and CRLF",
             [0xEF, 0xBB, 0xBF] + Array("[network]\r\nwifi_ssid = \(String(repeating: "\u{E9}", count: 16))\r\nwifi_psk = \(String(repeating: "~", count: 63))\r\nwifi_country = DE\r\n\(station)".utf8),
             String(repeating: "\u{E9}", count: 16), String(repeating: "~", count: 63), nil, "DE", false),
        ]
        for item in cases {
            let outcome = try run(item.bytes)
            XCTAssertEqual(outcome.check.status, 0, "\(item.name): \(outcome.check.error)")
            XCTAssertEqual(outcome.network.status, 0, "\(item.name): \(outcome.network.error)")
            let expected = try expected(from: outcome.ini, ssid: item.ssid, passphrase: item.passphrase, key: item.key,
                                        country: item.country, hidden: item.hidden)
            XCTAssertEqual(outcome.written, expected, item.name)
            XCTAssertEqual(outcome.written?.components(separatedBy: "network={").count, 2, "one network block: \(item.name)")
            XCTAssertEqual(outcome.kept, Data(item.bytes), "the bytes checked are the bytes kept: \(item.name)")
            XCTAssertTrue(outcome.network.out.contains("Wi-Fi: '\(item.ssid)'"), "\(item.name): \(outcome.network.out)")
            if let passphrase = item.passphrase {
                XCTAssertFalse(outcome.said.contains(passphrase) || outcome.written?.contains(passphrase) == true,
                               "the passphrase is never printed or written: \(item.name)")
            }
        }
    }

    func testWhatCheckConfigRejectsIsNotWritten() throws {
        let ssid = "wifi_ssid = Porch\n"
        var cases: [(name: String, bytes: [UInt8], line: Int, says: String)] = []
        // Each control character before ';' (a value libinih cut at a blank, or passed on whole).
        for (byte, name) in [(0x00, "NUL, 0x00"), (0x01, "0x01"), (0x08, "backspace, 0x08"), (0x0D, "carriage return, 0x0D"),
                             (0x0B, "vertical tab, 0x0B"), (0x0C, "form feed, 0x0C"), (0x1B, "escape, 0x1B"), (0x7F, "delete, 0x7F")] as [(UInt8, String)] {
            cases.append(("\(name) before ';'", Array("[network]\n\(ssid)wifi_psk = correcthorse".utf8) + [byte] + Array(";battery\n\(station)".utf8),
                          3, "character 24 is a control character (\(name))"))
        }
        cases += [
            ("a blank before ';'", network(ssid + "wifi_psk = correcthorse ;battery\n"), 3, "wifi_psk stops at a blank and ';'"),
            ("a tab before ';'", network(ssid + "wifi_psk = correcthorse\t;battery\n"), 3, "wifi_psk stops at a blank and ';'"),
            ("a comment after the name", network("wifi_ssid = Porch ; upstairs\n"), 2, "the name read is 'Porch'"),
            ("NUL in the name", Array("[network]\nwifi_ssid = Porch".utf8) + [0] + Array("evil\n\(station)".utf8), 2,
             "character 18 is a control character (NUL, 0x00)"),
            ("NUL in a comment", Array("[network]\n; ".utf8) + [0] + Array("\n\(ssid)\(station)".utf8), 2, "character 3 is a control character (NUL"),
            ("a line that starts with VT, libinih's continuation", Array("[network]\n\(ssid)wifi_psk = correcthorse\n".utf8) + [0x0B]
                + Array("wifi_country = GB\n\(station)".utf8), 4, "character 1 is a control character (vertical tab, 0x0B)"),
            ("old Mac line ends", Array("[network]\r\(ssid)\r".utf8), 1, "character 10 is a control character (carriage return"),
            ("\\0ooo as the country", network(ssid + "wifi_country = \\012\n"), 3, "wifi_country must be a two-letter country code"),
            ("\\0ooo as hidden", network(ssid + "wifi_hidden = \\061\n"), 3, "wifi_hidden must be true or false"),
            ("network={ as the country", network(ssid + "wifi_country = network={\n"), 3, "wifi_country must be a two-letter country code"),
            ("ctrl_interface= as hidden", network(ssid + "wifi_hidden = ctrl_interface=/tmp GROUP=playola\n"), 3, "wifi_hidden must be true or false"),
            ("a 64-character passphrase", network(ssid + "wifi_psk = \(String(repeating: "x", count: 64))\n"), 3,
             "wifi_psk has 64 characters and is not 64 hex digits"),
            ("a 65-character passphrase", network(ssid + "wifi_psk = \(String(repeating: "x", count: 65))\n"), 3, "wifi_psk has 65 characters"),
            ("a 7-character passphrase", network(ssid + "wifi_psk = 1234567\n"), 3, "wifi_psk has 7 characters"),
            ("a non-ASCII passphrase", network(ssid + "wifi_psk = caf\u{E9} au lait\n"), 3, "wifi_psk holds '\u{E9}' (character 4"),
            ("a 33-byte name", network("wifi_ssid = \(String(repeating: "x", count: 33))\n"), 2, "wifi_ssid must be 1 to 32 bytes, not 33"),
            ("a 34-byte name of 17 characters", network("wifi_ssid = \(String(repeating: "\u{E9}", count: 17))\n"), 2,
             "wifi_ssid must be 1 to 32 bytes, not 34"),
            ("an empty name", network("wifi_ssid =\n"), 2, "wifi_ssid must be 1 to 32 bytes, not 0"),
            ("UTF-16 with a BOM", [0xFF, 0xFE] + Array(String(decoding: network(ssid), as: UTF8.self).utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
             0, "not UTF-8 text (it looks like UTF-16: save it as UTF-8)"),
            ("UTF-16BE with a BOM", [0xFE, 0xFF] + Array(String(decoding: network(ssid), as: UTF8.self).utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
             0, "not UTF-8 text (it looks like UTF-16"),
            ("UTF-16 without a BOM", Array(String(decoding: network(ssid), as: UTF8.self).utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
             0, "not UTF-8 text (it looks like UTF-16"),
            ("Latin-1", Array("[network]\nwifi_ssid = Caf".utf8) + [0xE9] + Array("\n\(station)".utf8), 2,
             "not UTF-8 text: character 16 is the byte 0xE9"),
        ]
        for item in cases {
            let outcome = try run(item.bytes)
            XCTAssertEqual(outcome.check.status, 1, "\(item.name): \(outcome.check.out)")
            XCTAssertEqual(outcome.network.status, 1, "\(item.name): \(outcome.network.out)")
            XCTAssertNil(outcome.written, "nothing written: \(item.name)")
            XCTAssertNil(outcome.kept, "nothing kept: \(item.name)")
            let diagnostic = "\(outcome.ini):\(item.line): error: "
            for said in [outcome.check.error, outcome.network.error] {
                XCTAssertTrue(said.split(separator: "\n").contains { $0.hasPrefix(diagnostic) && $0.contains(item.says) },
                              "\(item.name): \(said)")
            }
            XCTAssertTrue(outcome.network.out.contains("not valid"), "\(item.name): \(outcome.network.out)")
            XCTAssertFalse(outcome.said.contains("correcthorse") || outcome.said.contains("lait"), "the passphrase is never printed: \(item.name)")
        }
    }

    /// Root keeps the INI it applied where only root writes, and falls back to it, checked again, when the
    /// owner's INI breaks; a kept copy that fails the checks, or that anyone else could have written, is set
    /// aside and nothing is applied.
    func testTheKeptCopyIsUsedCheckedAgainAndSetAsideWhenItFails() throws {
        let ini = directory + "/playola.ini", out = directory + "/wifi", keptDirectory = directory + "/persistent/network"
        let kept = keptDirectory + "/playola.ini", file = out + "/wpa_supplicant.conf"
        let command = ["network-config", "--config", ini, "--out", out, "--last-good", kept]
        try FileManager.default.createDirectory(atPath: directory + "/persistent", withIntermediateDirectories: false)
        let good = network("wifi_ssid = Porch\nwifi_psk = correct horse battery staple\nwifi_country = GB\n")
        try Data(good).write(to: URL(fileURLWithPath: ini))
        var run = try PlayolaRun(command)
        XCTAssertEqual(run.status, 0, run.error)
        XCTAssertEqual(FileManager.default.contents(atPath: kept), Data(good))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: keptDirectory)[.posixPermissions] as? Int, 0o700)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int, 0o600)

        // The owner's next edit cuts the passphrase at a comment: the board keeps the network it had.
        try Data(network("wifi_ssid = Porch\nwifi_psk = correct horse ;battery staple\nwifi_country = GB\n")).write(to: URL(fileURLWithPath: ini))
        run = try PlayolaRun(command)
        XCTAssertEqual(run.status, 0, run.error)
        XCTAssertTrue(run.out.hasPrefix("\(ini): not valid (1 error, the first at line 3: wifi_psk stops at a blank and ';'"), run.out)
        XCTAssertTrue(run.out.contains("Wi-Fi from the copy kept at its last good boot, \(kept)\n"), run.out)
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8),
                       try expected(from: kept, ssid: "Porch", passphrase: "correct horse battery staple", country: "GB"))
        XCTAssertEqual(FileManager.default.contents(atPath: kept), Data(good), "a broken INI is not kept")

        // A kept copy that says something else than it did (here: a VT that libinih took for a blank) is refused.
        let tampered = Array("[network]\nwifi_ssid = Porch\nwifi_country = GB".utf8) + [0x0B] + Array(";x\n\(station)".utf8)
        try Data(tampered).write(to: URL(fileURLWithPath: kept))
        run = try PlayolaRun(command)
        XCTAssertEqual(run.status, 1, run.out)
        XCTAssertTrue(run.out.contains("and so is the copy kept at its last good boot, \(kept) (1 error, the first at line 3: character 18 "
                                       + "is a control character (vertical tab, 0x0B)"), run.out)
        XCTAssertTrue(run.out.contains("renamed to \(kept).rejected; Wi-Fi off\n"), run.out)
        XCTAssertTrue(run.error.contains("\(kept):3: error: character 18 is a control character"), run.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: kept))
        XCTAssertEqual(FileManager.default.contents(atPath: kept + ".rejected"), Data(tampered))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "the Wi-Fi of the last boot is not left")

        // A valid copy that anyone could have written is not trusted either.
        try Data(good).write(to: URL(fileURLWithPath: kept))
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: kept)
        run = try PlayolaRun(command)
        XCTAssertEqual(run.status, 1, run.out)
        XCTAssertTrue(run.out.contains("not a file only its owner, uid \(getuid()), can write: uid \(getuid()), mode 666"), run.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))

        // Nothing kept, nothing valid.
        run = try PlayolaRun(command)
        XCTAssertEqual(run.status, 1, run.out)
        XCTAssertTrue(run.out.contains("and no copy is kept from a good boot (\(kept)): Wi-Fi off"), run.out)

        // A good INI without Wi-Fi removes the file: Wi-Fi off, and that is a configuration applied.
        try Data(good).write(to: URL(fileURLWithPath: ini))
        XCTAssertEqual(try PlayolaRun(command).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        try Data(station.utf8).write(to: URL(fileURLWithPath: ini))
        run = try PlayolaRun(command)
        XCTAssertEqual(run.status, 0, run.error)
        XCTAssertTrue(run.out.hasPrefix("kept for a boot whose INI has errors: \(kept)\nno wifi_ssid in \(ini): Wi-Fi off\nname on the network: playola"), run.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }

    func testAWrongCommandLineExitsTwo() throws {
        for words in [["network-config", "extra"], ["network-config", "--bogus"], ["network-config", "--out"], ["network-config", "--outdir=x"]] {
            let run = try PlayolaRun(words)
            XCTAssertEqual(run.status, 2, "\(words): \(run.error)")
            XCTAssertTrue(run.error.hasPrefix("playola network-config: "), run.error)
        }
        XCTAssertEqual(try PlayolaRun(["network-config", "--help"]).status, 0)
    }

    /// Issue 26: an INI of 1 MB with 3,000 references to stations it does not configure (and 15,829 it does)
    /// made check-config print 285 MB, each error listing every station, and take 289 MiB; `run` logged it all.
    func testAMegabyteOfUnknownStationsPrintsLittleInLittleMemory() throws {
        var text = "[gpio]\nchip = gpiochip0\n" + (0..<3000).map { "station missing\($0) = \($0)\n" }.joined()
        var count = 0
        while text.utf8.count < (1 << 20) - 100 {
            text += "[station s\(count)]\ntype = stream\nurl = http://127.0.0.1/s\(count)\n"
            count += 1
        }
        let ini = directory + "/big.ini"
        try text.write(toFile: ini, atomically: false, encoding: .utf8)
        for command in [["check-config", ini], ["run", "--config", ini, "--last-good", directory + "/none.ini"]] {
            let (status, output, peakKiB) = try measured(command)
            XCTAssertEqual(status, command[0] == "run" ? 78 : 1)
            XCTAssertLessThan(output.utf8.count, 64 << 10, "\(command[0]): \(output.utf8.count) bytes of diagnostics")
            XCTAssertTrue(output.contains("error: … and 2,980 more like it"), String(output.suffix(500)))
            XCTAssertLessThan(peakKiB, 96 << 10, "\(command[0]): peak RSS \(peakKiB) KiB for a 1 MiB INI")
            print("\(command[0]) on a 1 MiB INI of \(count) stations and 3,000 unknown ones: \(output.utf8.count) bytes out, peak RSS \(peakKiB) KiB")
        }
    }

    /// The binary under /usr/bin/time: its exit status, what it printed (both streams, to a file: on a
    /// regression that is hundreds of megabytes), and its peak RSS.
    private func measured(_ arguments: [String]) throws -> (status: Int32, output: String, peakKiB: Int) {
        let output = directory + "/output", peak = directory + "/peak"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", peak, Bundle.main.bundleURL.appendingPathComponent("playola").path] + arguments
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let said = try String(contentsOfFile: peak, encoding: .utf8).split(separator: "\n")
        return (process.terminationStatus, String(decoding: FileManager.default.contents(atPath: output) ?? Data(), as: UTF8.self),
                Int(said.last?.trimmingCharacters(in: .whitespaces) ?? "") ?? Int.max)
    }
}
