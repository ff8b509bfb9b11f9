import Foundation
import XCTest
import PlayolaTestSupport

/// `playola update FILE|URL|--check` through the real binary: what it refuses before RAUC is asked, and the
/// daily check of `[update] url` against a real HTTP server on loopback (Python's http.server, which answers
/// HEAD with Last-Modified and Content-Length). RAUC's side is the image's installer, which image/test
/// --update runs on the emulated Pi; here a script in its place records what it was handed.
final class UpdateCommandTests: XCTestCase {
    var folder = ""
    var installer = ""
    var environment: [String: String] = [:]
    var server: Process?

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "playola-update-command-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        installer = folder + "/firmware-update"
        try "#!/bin/sh\necho \"$* restart=${FIRMWARE_UPDATE_RESTART:-yes}\" >>\"\(folder)/calls\"\nexit ${INSTALL_EXIT:-0}\n".write(toFile: installer, atomically: true, encoding: .utf8)
        chmod(installer, 0o755)
        environment = ["PLAYOLA_FIRMWARE_UPDATE": installer, "PLAYOLA_UPDATE_SEEN": folder + "/seen-url",
                       "PLAYOLA_UPDATE_STATUS": folder + "/progress:" + folder + "/outcome", "PATH": "/usr/bin:/bin"]
    }

    override func tearDown() {
        server?.terminate()
        server?.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    var calls: [String] {
        ((try? String(contentsOfFile: folder + "/calls", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func update(_ words: [String], exit: Int32 = 0) throws -> PlayolaRun {
        try PlayolaRun(["update"] + words, environment: environment.merging(["INSTALL_EXIT": "\(exit)"]) { $1 })
    }

    /// Python's http.server on a free loopback port, serving `folder/www`; its base URL.
    func startServer() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder + "/www"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
        var said = ""
        while !said.contains("\n") {
            guard let data = out.fileHandleForReading.readAvailable() else { break }
            said += String(decoding: data, as: UTF8.self)
        }
        let port = try XCTUnwrap(said.components(separatedBy: " port ").last?.split(separator: " ").first, said)
        return "http://127.0.0.1:\(port)"
    }

    func testAWrongCommandLineIsSaidAndNothingIsInstalled() throws {
        for words in [[], ["a", "b"], ["--check", "x.raucb"], ["--config", "p.ini", "x.raucb"], ["--bogus"]] {
            let run = try update(words)
            XCTAssertEqual(run.status, 2, "\(words): \(run.error)")
            XCTAssertTrue(run.error.hasPrefix("playola update: "), run.error)
        }
        let url = try update(["ftp://example.com/x.raucb"])
        XCTAssertEqual(url.status, 2)
        XCTAssertTrue(url.error.contains("http:// or https://"), url.error)
        XCTAssertEqual(try update(["--help"]).status, 0)
        XCTAssertEqual(calls, [], "the installer was never run")
    }

    func testAFileMustBeThereAndReadableAndTheInstallersVerdictIsTheExitStatus() throws {
        let missing = try update([folder + "/none.raucb"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.error.contains("none.raucb") && missing.error.contains("No such file"), missing.error)
        let directory = try update([folder + "/www"])
        XCTAssertEqual(directory.status, 1)
        XCTAssertTrue(directory.error.contains("not a readable file"), directory.error)
        XCTAssertEqual(calls, [])

        let bundle = folder + "/v2.raucb"
        try Data("bundle".utf8).write(to: URL(fileURLWithPath: bundle))
        XCTAssertEqual(try update([bundle]).status, 0)
        XCTAssertEqual(try update([bundle], exit: 1).status, 1, "refused by RAUC: refused here")
        XCTAssertEqual(try update(["https://updates.example.com/v2.raucb"]).status, 0)
        XCTAssertEqual(calls, ["install \(bundle) restart=yes", "install \(bundle) restart=yes", "install https://updates.example.com/v2.raucb restart=yes"],
                       "by hand, the installer restarts the board itself")
    }

    func testAllowOlderGoesWithAFileAndReachesTheInstallerNamed() throws {
        let bundle = folder + "/v1.raucb"
        try Data("bundle".utf8).write(to: URL(fileURLWithPath: bundle))
        XCTAssertEqual(try update(["--allow-older", bundle]).status, 0)
        let url = try update(["--allow-older", "https://updates.example.com/v1.raucb"])
        XCTAssertEqual(url.status, 2)
        XCTAssertTrue(url.error.contains("a URL never installs an older bundle"), url.error)
        XCTAssertEqual(try update(["--allow-older"]).status, 2)
        XCTAssertEqual(calls, ["install --allow-older \(bundle) restart=yes"])
    }

    func testWithoutAnInstallerThePackageRouteIsNamed() throws {
        environment["PLAYOLA_FIRMWARE_UPDATE"] = folder + "/absent"
        let run = try update(["x.raucb"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.error.contains("apt update && apt upgrade"), run.error)
    }

    func testTheCheckInstallsABundleOnlyWhenTheServerSaysItChanged() throws {
        let base = try startServer()
        let bundle = folder + "/www/playola-rpi.raucb"
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: bundle))
        let ini = folder + "/playola.ini"
        try "[station porch]\ntype = local\npath = \(folder)\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let off = try update(["--check", "--config", ini])
        XCTAssertEqual(off.status, 0, off.error)
        XCTAssertTrue(off.out.contains("no [update] url: nothing to check"), off.out)

        try "[station porch]\ntype = local\npath = \(folder)\n[update]\nurl = \(base)/playola-rpi.raucb\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let first = try update(["--check", "--config", ini])
        XCTAssertEqual(first.status, 0, first.error)
        XCTAssertTrue(first.out.contains("a bundle not installed before"), first.out)
        XCTAssertTrue(first.error.contains("url is http://"), "the config's warning: \(first.error)")
        XCTAssertEqual(calls, ["install \(base)/playola-rpi.raucb restart=yes"], "by hand, the installer restarts the board itself")
        let seen = try String(contentsOfFile: folder + "/seen-url", encoding: .utf8)
        XCTAssertTrue(seen.contains("last-modified: ") && seen.contains("content-length: 4096"), seen)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: folder + "/seen-url")[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600, "the record holds the URL, and any credentials in it: its user's alone")

        let again = try update(["--check", "--config", ini])
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertTrue(again.out.contains("unchanged since the last install"), again.out)
        XCTAssertEqual(calls.count, 1, "not installed twice")

        try "an install of playola-rpi.raucb into slot B did not finish\n".write(toFile: folder + "/outcome", atomically: true, encoding: .utf8)
        let interrupted = try update(["--check", "--config", ini])
        XCTAssertTrue(interrupted.out.contains("its last install did not finish"), interrupted.out)
        XCTAssertEqual(calls.count, 2, "an install a power cut stopped is asked for again")
        try "0.3.0 installed into slot B; restarting into it\n".write(toFile: folder + "/outcome", atomically: true, encoding: .utf8)

        try Data(repeating: 2, count: 5000).write(to: URL(fileURLWithPath: bundle))
        let changed = try update(["--check", "--config", ini], exit: 1)
        XCTAssertEqual(changed.status, 1, "RAUC refused the new one")
        XCTAssertEqual(calls.count, 3)
        XCTAssertEqual(try update(["--check", "--config", ini]).status, 0)
        XCTAssertEqual(calls.count, 3, "a refused bundle is not tried again until it changes")

        try "[station porch]\ntype = local\npath = \(folder)\n[update]\nurl = \(base)/gone.raucb\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let gone = try update(["--check", "--config", ini])
        XCTAssertEqual(gone.status, 1)
        XCTAssertTrue(gone.error.contains("404"), gone.error)
        XCTAssertEqual(calls.count, 3)
    }

    /// The daily unit's first step, as the service user: it decides and installs nothing; its exit status is
    /// the unit's ExecCondition= (0: root's installer runs next; 1: nothing to do; 255: the unit fails).
    func testDecideOnlySaysWhetherToInstall() throws {
        let base = try startServer()
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: folder + "/www/v3.raucb"))
        let ini = folder + "/playola.ini"
        try "[station porch]\ntype = local\npath = \(folder)\n[update]\nurl = \(base)/v3.raucb\n".write(toFile: ini, atomically: true, encoding: .utf8)
        XCTAssertEqual(try update(["--check", "--decide", "--config", ini]).status, 0, "new: install")
        XCTAssertEqual(try update(["--check", "--decide", "--config", ini]).status, 1, "unchanged: nothing to do")
        try "[station porch]\ntype = local\npath = \(folder)\n[update]\nurl = \(base)/gone.raucb\n".write(toFile: ini, atomically: true, encoding: .utf8)
        XCTAssertEqual(try update(["--check", "--decide", "--config", ini]).status, 255, "unreachable: the unit fails")
        try "[station porch]\ntype = local\npath = \(folder)\n".write(toFile: ini, atomically: true, encoding: .utf8)
        XCTAssertEqual(try update(["--check", "--decide", "--config", ini]).status, 1, "no [update] url: nothing to do")
        XCTAssertEqual(calls, [], "deciding never runs the installer")
        XCTAssertEqual(try update(["--decide", "x.raucb"]).status, 2, "--decide goes with --check")
    }

    func testABadUpdateURLIsAConfigErrorAndNothingIsChecked() throws {
        let ini = folder + "/playola.ini"
        try "[station porch]\ntype = local\npath = \(folder)\n[update]\nurl = ftp://example.com/x.raucb\n".write(toFile: ini, atomically: true, encoding: .utf8)
        let run = try update(["--check", "--config", ini])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.error.contains("\(ini):5: error:") && run.error.contains("url"), run.error)
        XCTAssertEqual(calls, [])
    }
}
