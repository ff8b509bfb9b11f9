import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 29, item 2: "every command gives what MPD would", held against MPD itself. The same python-mpd2
/// scenario (`mpd_client.py commands`) runs against Debian's mpd 0.23 (two songs in a stored playlist, a null
/// output with a software mixer) and against `playola run`; what each step gave is compared: failures word
/// for word, answers by their fields.
final class MPDReferenceTests: XCTestCase {
    /// A real MPD on a free port of 127.0.0.1, in a folder of its own.
    final class ReferenceMPD {
        let folder = NSTemporaryDirectory() + "mpd-reference-\(UUID().uuidString.prefix(8))"
        let process = Process()
        let port: Int

        init(password: String) throws {
            let fm = FileManager.default
            for sub in ["music", "playlists"] { try fm.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true) }
            for (name, frequency, title) in [("a", 440, "A Tune"), ("b", 660, "B Tune")] {
                try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=\(frequency):d=60", "-metadata", "title=\(title)",
                                       "-metadata", "artist=The Band", "\(folder)/music/\(name).mp3"])
            }
            try "a.mp3\nb.mp3\n".write(toFile: "\(folder)/playlists/porch.m3u", atomically: true, encoding: .utf8)
            port = try RemoteService.freePort()
            try """
                music_directory "\(folder)/music"
                playlist_directory "\(folder)/playlists"
                db_file "\(folder)/db"
                bind_to_address "127.0.0.1"
                port "\(port)"
                zeroconf_enabled "no"
                password "\(password)@read,add,player,control,admin"
                audio_output {
                    type "null"
                    name "My Null"
                    mixer_type "software"
                }
                """.write(toFile: "\(folder)/mpd.conf", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/mpd")
            process.arguments = ["--no-daemon", "\(folder)/mpd.conf"]
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    func testEachCommandGivesWhatMPDGives() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/mpd"), "Debian's mpd (script/setup installs it)")
        let reference = try ReferenceMPD(password: RemoteService.password)
        try waitUntil("mpd listens", timeout: 10) { RemoteService.connects(reference.port) }
        let mpc = ["-h", "\(RemoteService.password)@127.0.0.1", "-p", "\(reference.port)"]
        XCTAssertEqual(try RemoteService.run("/usr/bin/mpc", mpc + ["-w", "update"]).status, 0)
        try waitUntil("mpd has the songs") { (try? RemoteService.run("/usr/bin/mpc", mpc + ["listall"]).out) == "a.mp3\nb.mp3\n" }
        let theirs = RemoteService.steps(try RemoteService.run("/usr/bin/python3", [RemoteService.clientScript, "127.0.0.1", "\(reference.port)",
                                                                                  RemoteService.password, "commands", "porch"]).out)
        // The radio plays the same two files, as a folder station of the same name.
        let remote = try RemoteService()
        remote.extraStations = "[station porch]\ntype = local\npath = \(reference.folder)/music\n"
        try remote.start(self)
        defer { remote.stop() }
        try remote.service.waitUntilSteady(self)
        let ours = try remote.python("commands", "porch")
        XCTAssertEqual(Set(ours.keys), Set(theirs.keys))

        // Failures, word for word.
        for step in ["unknown", "setvol x", "setvol 150", "pause 2", "load nope", "playlistinfo 99", "idle foo"] {
            XCTAssertNotNil(theirs[step]?["error"], "MPD refuses \(step)")
            XCTAssertEqual(ours[step]?["error"] as? String, theirs[step]?["error"] as? String, step)
        }
        // Answers with the same values.
        for step in ["ping", "load", "play", "setvol 55", "getvol", "volume -5", "status after volume", "pause 1", "status paused", "pause 0",
                     "status resumed", "next", "previous", "stop", "play again", "notcommands", "ping after errors", "close"] {
            XCTAssertNil(theirs[step]?["error"], "MPD answers \(step): \(theirs[step] ?? [:])")
            XCTAssertEqual("\(ours[step]?["value"] ?? "none")", "\(theirs[step]?["value"] ?? "none")", step)
        }
        // Answers with the same fields (the values are the radio's).
        func fields(_ steps: [String: [String: Any]], _ step: String) -> Set<String> {
            let value = steps[step]?["value"]
            let object = (value as? [String: String]) ?? (value as? [[String: String]])?.first ?? [:]
            return Set(object.keys)
        }
        XCTAssertEqual(fields(ours, "status"), fields(theirs, "status"), "status while playing")
        XCTAssertEqual(fields(ours, "listplaylists"), fields(theirs, "listplaylists"))
        XCTAssertTrue(fields(ours, "outputs").isSubset(of: fields(theirs, "outputs").union(["attribute"])))
        XCTAssertEqual(fields(theirs, "outputs").subtracting(fields(ours, "outputs")).subtracting(["attribute"]), [])
        // A song: MPD's fields but a file's (its modification time and format), and Name, the station.
        for step in ["currentsong", "playlistinfo", "playlistinfo 0"] {
            XCTAssertEqual(fields(ours, step).subtracting(fields(theirs, step)), ["name"], step)
            XCTAssertEqual((ours[step]?["value"] as? [String: String] ?? (ours[step]?["value"] as? [[String: String]])?.first)?["artist"], "The Band", step)
            XCTAssertEqual(fields(theirs, step).subtracting(fields(ours, step)), ["last-modified", "format"], step)
        }
        // Stopped, MPD keeps its queue (and its song fields); a radio's queue is what airs: none. No times in either.
        for key in ["elapsed", "time", "duration", "bitrate", "audio"] {
            XCTAssertFalse(fields(theirs, "status stopped").contains(key) || fields(ours, "status stopped").contains(key), key)
        }
        XCTAssertEqual((ours["command_list_ok"]?["value"] as? [Any])?.count, (theirs["command_list_ok"]?["value"] as? [Any])?.count)
        XCTAssertTrue(Set(ours["commands"]?["value"] as? [String] ?? ["x"]).isSubset(of: Set(theirs["commands"]?["value"] as? [String] ?? [])),
                      "every command here is one of MPD's")
        XCTAssertEqual((ours["mpd_version"]?["value"] as? String)?.prefix(5), (theirs["mpd_version"]?["value"] as? String)?.prefix(5))
    }
}
