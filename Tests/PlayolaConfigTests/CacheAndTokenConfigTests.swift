import Foundation
import PlayolaEngine
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
import XCTest

/// Issue 12: `check-config` refuses a cache directory that would delete or evict someone else's files,
/// and a token that could smuggle an HTTP header is refused with a clear message.
final class CacheAndTokenConfigTests: XCTestCase {
    private var directory = ""
    private let demo = "[station demo]\ntype = local\npath = /tmp\n"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Diagnostics of a config whose state directory is `D/state` and cache directory `cache` (D: the test's folder).
    private func diagnostics(cache: String, extra: String = "") throws -> (config: ApplianceConfig?, lines: [String]) {
        let path = directory + "/playola.ini"
        try (demo + "[service]\nstate_dir = \(directory)/state\n[cache]\ndir = \(cache)\n" + extra)
            .write(toFile: path, atomically: false, encoding: .utf8)
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        return (config, diagnostics.map {
            $0.description.replacingOccurrences(of: path, with: "FILE").replacingOccurrences(of: directory, with: "D")
        })
    }

    func testACacheDirectoryThatSharesTheStateDirectoryOrHoldsSomeonesFilesIsRefused() throws {
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: directory + "/home/notes.txt"))
        let own = "give the cache a directory of its own"
        let cases: [(String, [String])] = [
            (directory + "/state", ["FILE:7: error: cache dir D/state is the state directory: \(own)"]),
            (directory + "/state/", ["FILE:7: error: cache dir D/state/ is the state directory: \(own)"]),
            (directory + "/state/../state", ["FILE:7: error: cache dir D/state/../state is the state directory: \(own)"]),
            (directory + "/state/cache", ["FILE:7: error: cache dir D/state/cache is inside the state directory D/state: \(own)"]),
            (directory, ["FILE:7: error: cache dir D contains the state directory D/state: \(own)"]),
            (directory + "/home", ["FILE:7: error: cache dir D/home holds files the cache did not make (no .playola-cache in it): "
                                   + "give the cache an empty directory of its own"]),
        ]
        for (cache, expected) in cases {
            let (config, lines) = try diagnostics(cache: cache)
            XCTAssertEqual(lines, expected, cache)
            XCTAssertNil(config, cache)
        }
    }

    func testAnEmptyNewOrMarkedCacheDirectoryIsAccepted() throws {
        try FileManager.default.createDirectory(atPath: directory + "/empty", withIntermediateDirectories: true)
        // A directory the cache has used: its marker, its files, and a file someone added later (left alone).
        _ = try AudioCache(directory: directory + "/used", budgetBytes: 1 << 20)
        try Data("later".utf8).write(to: URL(fileURLWithPath: directory + "/used/later.txt"))
        for cache in [directory + "/empty", directory + "/not-yet", directory + "/used", directory + "/stateful"] {
            let (config, lines) = try diagnostics(cache: cache)
            XCTAssertEqual(lines, [], cache)
            XCTAssertEqual(config?.cache.dir, cache)
        }
    }

    func testATokenFileIsReadAsOneLineAndControlCharactersAreRefused() throws {
        let tokenPath = directory + "/token"
        let cases: [(String, String?, [String])] = [
            ("abc123\n", "abc123", []),
            ("  abc123 \r\n", "abc123", []),
            ("abc123\r\nX-Smuggled: yes\r\n", nil,
             ["FILE:9: warning: token file D/token holds more than one line; a token is one line: "
              + "listening sessions are not reported until it is fixed"]),
            ("abc\u{1b}[2J123", nil,
             ["FILE:9: warning: token file D/token holds a control character (0x1b) at byte 4; a token is printable text: "
              + "listening sessions are not reported until it is fixed"]),
        ]
        for (contents, token, expected) in cases {
            try contents.write(toFile: tokenPath, atomically: false, encoding: .utf8)
            chmod(tokenPath, 0o600)
            let (config, lines) = try diagnostics(cache: directory + "/cache", extra: "[playola]\ntoken_file = \(tokenPath)\n")
            XCTAssertEqual(lines, expected, contents.debugDescription)
            XCTAssertEqual(config?.playola.token(), token, contents.debugDescription)
        }
    }
}
