@testable import PlayolaConfig
import Foundation
import XCTest

/// Issue 29, items 1 and 5: `[remote]` and `[hooks]` read and checked as the other sections are: each mistake
/// named with its file, line and why, and the password never in a message.
final class RemoteConfigTests: XCTestCase {
    private var scratch: ConfigScratch!
    private var directory: String { scratch.directory }
    private let demo = "[station demo]\ntype = local\npath = /tmp\n"

    override func setUpWithError() throws { scratch = try ConfigScratch("remote-config") }
    // Removes its folder: XCTest keeps each test case for the whole run.
    override func tearDown() { scratch = nil }

    func testOffByDefault() throws {
        let config = try XCTUnwrap(try scratch.load(demo).config)
        XCTAssertEqual(config.remote, RemoteSettings(listen: .off, port: 6600, password: nil))
        XCTAssertEqual(config.hooks, HookSettings(onChange: nil, timeout: 10))
    }

    func testValuesAreRead() throws {
        let hook = directory + "/hook.sh"
        try "#!/bin/sh\n".write(toFile: hook, atomically: false, encoding: .utf8)
        chmod(hook, 0o755)
        let (config, lines) = try scratch.load("[remote]\nlisten = lan\nport = 6601\npassword = correct horse battery\n"
                                       + "[hooks]\non_change = \(hook)\ntimeout = 1m\n" + demo)
        XCTAssertEqual(lines, [])
        XCTAssertEqual(config?.remote, RemoteSettings(listen: .lan, port: 6601, password: "correct horse battery"))
        XCTAssertEqual(config?.hooks, HookSettings(onChange: hook, timeout: 60))
        XCTAssertFalse("\(config!.remote)".contains("horse"), "the description never says the password")
    }

    func testEachMistakeGivesItsExactDiagnostic() throws {
        let cases: [(String, [String])] = [
            ("[remote]\nlisten = wan\n", ["FILE:2: error: listen must be off, localhost or lan, not 'wan'"]),
            ("[remote]\nlisten = lan\n",
             ["FILE:2: error: listen = lan needs a password of 12 characters or more: without one, anyone on the network could steer the radio"]),
            ("[remote]\nlisten = lan\npassword = hunter2pass\n",
             ["FILE:3: error: password must be at least 12 characters, not 11: a shorter one can be guessed by anyone on the network"]),
            ("[remote]\nlisten = localhost\npassword = short\n",
             ["FILE:3: error: password must be at least 12 characters, not 5: a shorter one can be guessed by anyone on the network"]),
            ("[remote]\npassword = twelve chars ;and a comment\n",
             ["FILE:2: error: password stops at a blank and ';', which start a comment: the password read would be its first 12 characters; a password cannot hold ' ;' here"]),
            ("[remote]\npassword = twelve\u{7F}chars\n", ["FILE:2: error: character 18 is a control character (delete, 0x7F): a value is printable text on one line"]),
            ("[remote]\nport = 0\n", ["FILE:2: error: port must be a TCP port from 1 to 65535, not '0'"]),
            ("[remote]\nport = 65536\n", ["FILE:2: error: port must be a TCP port from 1 to 65535, not '65536'"]),
            ("[remote]\nport = +6600\n", ["FILE:2: error: port must be a TCP port from 1 to 65535, not '+6600'"]),
            ("[remote]\nlisten = lan\nlisten = off\npassword = correct horse battery\n",
             ["FILE:3: error: duplicate key 'listen' in [remote] (first at line 2)"]),
            ("[remote]\npasword = x\n", ["FILE:2: warning: unknown key 'pasword' in [remote]; did you mean 'password'?"]),
            ("[remot]\nlisten = lan\n", ["FILE:1: warning: unknown section [remot]; did you mean [remote]?"]),
            ("[hooks]\non_change = hook.sh\n", ["FILE:2: error: on_change must be an absolute path, not 'hook.sh'"]),
            ("[hooks]\non_change = /nonexistent/hook\n",
             ["FILE:2: warning: on_change /nonexistent/hook: No such file or directory; it is not run until it is an executable file"]),
            ("[hooks]\ntimeout = 11m\n", ["FILE:2: error: timeout must be a duration like 10s or 1m, at most 10m, not '11m'"]),
            ("[hooks]\ntimeout = soon\n", ["FILE:2: error: timeout must be a duration like 10s or 1m, at most 10m, not 'soon'"]),
        ]
        for (text, expected) in cases {
            let (config, lines) = try scratch.load(text + demo)
            XCTAssertEqual(lines, expected, text)
            XCTAssertEqual(config == nil, expected.contains { $0.contains(": error: ") }, text)
            for line in lines {
                XCTAssertFalse(line.contains("hunter2") || line.contains("horse"), "a message says the password: \(line)")
            }
        }
    }

    func testAPasswordInAWorldReadableFileIsAWarning() throws {
        let (config, lines) = try scratch.load("[remote]\nlisten = lan\npassword = correct horse battery\n" + demo, mode: 0o644)
        XCTAssertNotNil(config)
        XCTAssertEqual(lines, ["FILE:3: warning: config file FILE holds the remote password and is readable by everyone; chmod 640 it"])
    }

    /// `[network] hostname` (item 4): one DNS label, lower-cased; anything else named with its line.
    func testTheHostnameIsOneDNSLabel() throws {
        XCTAssertEqual(try scratch.load("[network]\nhostname = Kitchen-Radio2\n" + demo).config?.network.hostname, "kitchen-radio2")
        XCTAssertNil(try scratch.load(demo).config?.network.hostname)
        let rule = "hostname must be 1 to 63 letters, digits and '-', not starting or ending with '-' (such as kitchen-radio)"
        for bad in ["-radio", "radio-", "kitchen_radio", "kitchen.radio", "küche", String(repeating: "a", count: 64)] {
            let (config, lines) = try scratch.load("[network]\nhostname = \(bad)\n" + demo)
            XCTAssertNil(config, bad)
            XCTAssertEqual(lines, ["FILE:2: error: \(rule), not '\(bad)'"], bad)
        }
    }

}
