@testable import PlayolaConfig
@testable import PlayolaControl
@testable import PlayolaRemote
import PlayolaTestSupport
import XCTest

/// The MPD connection's decisions alone (`MPDSession`, `MPDRequestLine`, `PasswordGate`, `MPDResponse`),
/// against what MPD 0.23 answers (the reference outputs were taken from Debian's mpd 0.23.12 on 127.0.0.1).
final class MPDSessionTests: XCTestCase {
    private func line(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testRequestLinesAreReadAsMPDsTokenizerReadsThem() throws {
        XCTAssertEqual(try MPDRequestLine(line("load porch")), MPDRequestLine(command: "load", arguments: ["porch"]))
        XCTAssertEqual(try MPDRequestLine(line(#"password "a \"quoted\" pass\\word" "#)).arguments, [#"a "quoted" pass\word"#])
        XCTAssertEqual(try MPDRequestLine(line("status\r")).command, "status", "a telnet's carriage return is a trailing blank")
        XCTAssertEqual(try MPDRequestLine(line("setvol\t 50")).arguments, ["50"])
        func failure(_ text: String) -> MPDRequestLine.Failure? {
            do throws(MPDRequestLine.Failure) { _ = try MPDRequestLine(line(text)); return nil } catch { return error }
        }
        XCTAssertEqual(failure(#"ping "unterminated"#)?.error.line(at: 0), "ACK [5@0] {} Missing closing '\"'\n")
        XCTAssertEqual(failure(#"ping "a"b"#)?.error.line(at: 0), "ACK [5@0] {} Space expected after closing '\"'\n")
        XCTAssertEqual(failure("load it's")?.error.line(at: 0), "ACK [5@0] {} Invalid unquoted character\n")
        XCTAssertEqual(failure("Status")?.closes, true, "MPD closes on a line not starting with a lower-case letter")
        XCTAssertEqual(failure("")?.closes, true)
        XCTAssertEqual(failure("GET / HTTP/1.1")?.closes, true)
        XCTAssertEqual(failure("sta-tus")?.error.message, "Invalid word character")
        XCTAssertEqual(failure("ping " + Array(repeating: "x", count: 17).joined(separator: " "))?.error.line(at: 0), "ACK [2@0] {} Too many arguments\n")
    }

    func testArgumentsAndPermissionsAreCheckedAsMPDChecksThem() {
        func refusal(_ text: String, authorized: Bool = true) -> String? {
            do throws(MPDError) {
                try MPDCommands.check(try! MPDRequestLine(line(text)), authorized: authorized)
                return nil
            } catch { return error.line(at: 0) }
        }
        XCTAssertEqual(refusal("foo bar"), "ACK [5@0] {} unknown command \"foo\"\n")
        XCTAssertEqual(refusal("ping extra"), "ACK [2@0] {ping} wrong number of arguments for \"ping\"\n")
        XCTAssertEqual(refusal("setvol"), "ACK [2@0] {setvol} wrong number of arguments for \"setvol\"\n")
        XCTAssertEqual(refusal("pause 1 2"), "ACK [2@0] {pause} too many arguments for \"pause\"\n")
        XCTAssertEqual(refusal("status", authorized: false), "ACK [4@0] {status} you don't have permission for \"status\"\n")
        XCTAssertNil(refusal("ping", authorized: false))
        XCTAssertNil(refusal("password x", authorized: false))
        XCTAssertNil(refusal("close a b c", authorized: false), "close takes anything, as MPD's does")
        XCTAssertThrowsError(try MPDCommands.unsigned("x", "setvol")) { XCTAssertEqual(($0 as? MPDError)?.message, "Integer expected: x") }
        XCTAssertThrowsError(try MPDCommands.unsigned("150", "setvol", upTo: 100)) { XCTAssertEqual(($0 as? MPDError)?.message, "Number too large: 150") }
        XCTAssertEqual(try MPDCommands.integer("-5", "volume", within: -100...100), -5)
        XCTAssertEqual(try MPDCommands.positions("1:", count: 3, "playlistinfo"), 1..<3)
        XCTAssertEqual(try MPDCommands.positions("0:99", count: 3, "playlistinfo"), 0..<3, "the end is clipped")
        XCTAssertThrowsError(try MPDCommands.positions("5", count: 2, "playlistinfo")) { XCTAssertEqual(($0 as? MPDError)?.message, "Bad song index") }
        XCTAssertThrowsError(try MPDCommands.positions("x", count: 2, "playlistinfo")) {
            XCTAssertEqual(($0 as? MPDError)?.message, "Integer or range expected: x")
        }
    }

    func testCommandListsAreGatheredAndRunAtTheirEnd() {
        var session = MPDSession(authorized: true)
        XCTAssertEqual(session.received(line("command_list_ok_begin")), [])
        XCTAssertEqual(session.received(line("status")), [])
        XCTAssertEqual(session.received(line("next")), [])
        XCTAssertEqual(session.received(line("command_list_end")), [.execute(MPDCommands.Batch(lines: [line("status"), line("next")], listOK: true))])
        XCTAssertTrue(session.executing)
        XCTAssertEqual(session.finished(.init(text: "list_OK\nlist_OK\nOK\n", state: MPDClientState(authorized: true))), [.write("list_OK\nlist_OK\nOK\n")])
        // idle inside a list: MPD closes.
        _ = session.received(line("command_list_begin"))
        XCTAssertEqual(session.received(line("idle")).last, .close)
        // A list larger than its limit: closed, not gathered for ever.
        var small = MPDSession(authorized: true, listLimit: 20)
        _ = small.received(line("command_list_begin"))
        XCTAssertEqual(small.received(line("ping")), [])
        XCTAssertEqual(small.received(line("status status status status")).last, .close)
    }

    func testIdleWaitsForItsSubsystemsAndChangesInBetweenAreNotLost() {
        var session = MPDSession(authorized: true)
        XCTAssertEqual(session.received(line("idle player mixer")), [])
        XCTAssertTrue(session.isIdle)
        XCTAssertEqual(session.changed([.playlist]), [], "not what it waits for")
        XCTAssertEqual(session.changed([.mixer, .player]), [.write("changed: player\nchanged: mixer\nOK\n")])
        XCTAssertFalse(session.isIdle)
        // The playlist change came while it waited for others: the next idle that wants it answers at once.
        XCTAssertEqual(session.received(line("idle")), [.write("changed: playlist\nOK\n")])
        // noidle ends an idle with a bare OK; another command meanwhile closes, with a word first.
        XCTAssertEqual(session.received(line("idle options")), [])
        XCTAssertEqual(session.received(line("noidle")), [.write("OK\n")])
        XCTAssertEqual(session.received(line("noidle")), [], "no idle to end: nothing, as MPD")
        XCTAssertEqual(session.received(line("idle")), [])
        XCTAssertEqual(session.received(line("status")).last, .close)
        var other = MPDSession(authorized: true)
        XCTAssertEqual(other.received(line("idle foo")), [.write("ACK [2@0] {idle} Unrecognized idle event: foo\n")])
        var locked = MPDSession(authorized: false)
        XCTAssertEqual(locked.received(line("idle")), [.write("ACK [4@0] {idle} you don't have permission for \"idle\"\n")])
    }

    func testPasswordAttemptsFromOneAddressAreSlowedAndQueued() {
        let clock = Clock()
        let gate = PasswordGate { clock.now }
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: true), 0, "a right password at once")
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: false), 1)
        clock.now += 1
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: false), 2)
        // Two at once on parallel connections: the second waits for the first.
        clock.now += 2
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: false), 4)
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: false), 12)
        XCTAssertEqual(gate.wait(for: "10.0.0.7", right: false), 1, "another address is counted apart")
        // A right one waits its turn, then the address is forgiven.
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: true), 12)
        XCTAssertEqual(gate.wait(for: "10.0.0.9", right: false), 1)
        XCTAssertEqual((1...8).map(PasswordGate.penalty), [1, 2, 4, 8, 16, 16, 16, 16])
        XCTAssertTrue(MPDCommands.equalInConstantTime("correct horse", "correct horse"))
        XCTAssertFalse(MPDCommands.equalInConstantTime("correct horse", "correct hors"))
        XCTAssertFalse(MPDCommands.equalInConstantTime("", "x"))
    }

    func testStatusAndSongsInMPDsFieldsAndOrder() {
        var report = StatusReport(state: .playing, station: "porch", device: "hw:CARD=Audio,DEV=0", deviceAvailable: true, volume: 42, uptime: 1,
                                  config: ConfigStatus(file: "/etc/playola.ini", lastGood: "/var/lib/playola/last-good.ini", usingLastGood: false),
                                  cache: .init(bytes: 0, budget: 0, files: 0))
        report.deviceRate = 48000
        report.deviceFormat = "s16"
        let songs = [MPDQueue.Song(id: 7, position: 0, file: "https://x/a.mp3", title: "A\nTune", artist: "The Band", length: 187.5),
                     MPDQueue.Song(id: 8, position: 1, file: "https://x/b.mp3", title: "B", artist: "", length: 60)]
        report.spin = nil
        XCTAssertEqual(MPDResponse.status(report, songs: songs, version: 3), """
            volume: 42
            repeat: 0
            random: 0
            single: 0
            consume: 0
            partition: default
            playlist: 3
            playlistlength: 2
            mixrampdb: 0
            state: play
            song: 0
            songid: 7
            time: 0:188
            elapsed: 0.000
            bitrate: 0
            duration: 187.500
            audio: 48000:16:2
            nextsong: 1
            nextsongid: 8

            """)
        XCTAssertEqual(MPDResponse.song(songs[0], station: "porch"), """
            file: https://x/a.mp3
            Artist: The Band
            Title: A Tune
            Name: porch
            Time: 188
            duration: 187.500
            Pos: 0
            Id: 7

            """, "a newline in a title is a blank: it cannot forge a line")
        report.state = .idle
        XCTAssertEqual(MPDResponse.status(report, songs: [], version: 4).split(separator: "\n").last, "state: stop")
        XCTAssertEqual(MPDResponse.decimal(0.0005), "0.001")
        XCTAssertEqual(MPDResponse.bits("float32"), "f")
    }

    private final class Clock: @unchecked Sendable {
        // @unchecked Sendable: one test thread reads and writes it; the gate calls `now` on that thread only.
        var now = 1000.0
    }
}

/// Bad input, in process: random bytes as command lines, by the hundred thousand. Every one is a command or
/// a refusal that is one ACK line (nothing of the input can add a line), and none crashes.
final class MPDBadInputTests: XCTestCase {
    func testRandomLinesAreCommandsOrOneLineRefusals() {
        var generator = SeededGenerator(seed: 29)
        let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz_ \t\"'\\:0123456789".utf8) + [0, 1, 0x7F, 0xC3, 0xA9, 0xFF, 0x0D]
        var commands = 0, refusals = 0
        for _ in 0..<200_000 {
            let count = Int.random(in: 0..<40, using: &generator)
            var line = (0..<count).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            if Bool.random(using: &generator), let name = MPDCommands.table.keys.randomElement(using: &generator) { line = Array(name.utf8) + [32] + line }
            do throws(MPDRequestLine.Failure) {
                let request = try MPDRequestLine(line)
                XCTAssertFalse(request.command.isEmpty)
                do throws(MPDError) { try MPDCommands.check(request, authorized: Bool.random(using: &generator)) } catch {
                    XCTAssertTrue(Self.isOneACKLine(error.line(at: 0)), error.line(at: 0))
                    refusals += 1
                    continue
                }
                commands += 1
            } catch {
                XCTAssertTrue(Self.isOneACKLine(error.error.line(at: 0)), error.error.line(at: 0))
                refusals += 1
            }
        }
        print("200,000 random lines: \(commands) commands, \(refusals) refusals")
        XCTAssertGreaterThan(commands, 1000, "the generator reaches real commands too")
    }

    static func isOneACKLine(_ text: String) -> Bool {
        text.hasPrefix("ACK [") && text.hasSuffix("\n") && text.dropLast().allSatisfy { $0 != "\n" && $0 != "\r" }
    }

}
