import Foundation
@testable import PlayolaEngine
import XCTest

/// The schedule follower on a scripted clock: each test plays the player's part (a schedule fetched, a
/// download's progress and end, the wall-clock and monotonic times of each look) and checks the program
/// the follower returns. Spins are placed in seconds from `origin`.
final class ScheduleFollowerTests: XCTestCase {
    private let origin = Date(timeIntervalSince1970: 1_750_000_000)

    private func at(_ seconds: Double) -> Date { origin.addingTimeInterval(seconds) }

    private func spin(_ id: String, at seconds: Double, lasting length: Double = 20, url: String? = nil) -> Spin {
        Spin(id: id, stationID: "station", airtime: at(seconds), startingVolume: 1, fades: [],
             audioBlock: AudioBlock(id: "block-" + id, title: id, artist: "", durationMS: Int(length * 1000),
                                    endOfMessageMS: Int(length * 1000), downloadURL: url ?? "https://files.test/\(id).mp3"))
    }

    private func following(_ spins: [Spin], now: Double = 0, localFile: @escaping @Sendable (String) -> String? = { _ in nil })
        -> ScheduleFollower {
        var follower = ScheduleFollower(lookahead: 600, refreshInterval: 20, downloadsAtOnce: 2, localFile: localFile)
        follower.adopt(spins, shift: 0, now: at(now))
        return follower
    }

    func testOnlyWhatSoundsWithinTheLookaheadIsPinnedFetchedAndPlayed() {
        let playing = spin("a", at: -5), next = spin("b", at: 15), later = spin("c", at: 700), ended = spin("z", at: -40)
        var follower = following([ended, playing, next, later])
        let program = follower.update(now: at(0))
        XCTAssertEqual(program.entries, [ProgramEntry(spin: playing, file: nil), ProgramEntry(spin: next, file: nil)])
        XCTAssertEqual(program.pinned, ["https://files.test/a.mp3", "https://files.test/b.mp3"])
        XCTAssertEqual(program.downloads.map(\.spinID), ["a", "b"])
        XCTAssertEqual(program.audible, .loading(0))
        XCTAssertEqual(follower.update(now: at(0.25)).downloads, [], "each file is asked for once")
        XCTAssertEqual(follower.nextSpin(at: at(0)), next)
        XCTAssertEqual(follower.update(now: at(101)).entries.map(\.spin.id), ["c"], "c comes within the lookahead at 100 s")
    }

    func testDownloadsRunTwoAtOnceInAirtimeOrderAndTheAudibleSpinIsReadyWithItsFile() {
        let spins = (0..<4).map { spin("s\($0)", at: -5 + 20 * Double($0)) }
        var follower = following(spins)
        XCTAssertEqual(follower.update(now: at(0)).downloads.map(\.spinID), ["s0", "s1"])
        follower.downloadProgressed("s0", 0.4)
        XCTAssertEqual(follower.update(now: at(1)).audible, .loading(0.4))
        XCTAssertEqual(follower.downloaded("s0", .success("/cache/s0.mp3")), .quiet)
        let program = follower.update(now: at(2))
        XCTAssertEqual(program.downloads.map(\.spinID), ["s2"], "one slot freed: the next spin in airtime order")
        XCTAssertEqual(program.entries.first, ProgramEntry(spin: spins[0], file: "/cache/s0.mp3"))
        XCTAssertEqual(program.audible, .ready(spins[0]))
    }

    func testAFailedDownloadIsSaidOnceAndItsSpinIsSilenceThatDoesNotHoldThePlayerInLoading() {
        let spins = [spin("a", at: -5), spin("b", at: 15)]
        var follower = following(spins)
        _ = follower.update(now: at(0))
        XCTAssertEqual(follower.downloaded("a", .failure(.refused("https://files.test/a.mp3", "403"))),
                       .notice("spin a will be silent: download of https://files.test/a.mp3 refused: 403"))
        XCTAssertEqual(follower.downloaded("b", .failure(.backedOff("https://files.test/b.mp3", seconds: 30))), .quiet,
                       "a file that failed recently was named when it failed")
        let program = follower.update(now: at(1))
        XCTAssertEqual(program.entries, [], "a failed spin is not handed to the engine")
        XCTAssertEqual(program.audible, .ready(spins[0]))
        XCTAssertEqual(program.downloads, [], "nor asked for again")
        XCTAssertNil(follower.configurationProblem)
    }

    func testACacheTooSmallForWhatMustPlayIsAConfigurationProblem() {
        var follower = following([spin("a", at: 0)])
        _ = follower.update(now: at(0))
        let full = CacheError.noSpace(url: "https://files.test/a.mp3", needed: 9, budget: 4, pinned: 0, reserved: 0)
        XCTAssertEqual(follower.downloaded("a", .failure(.cache("https://files.test/a.mp3", full))), .configurationProblem("\(full)"))
        XCTAssertEqual(follower.configurationProblem, "\(full)")
    }

    func testACancelledDownloadIsAskedForAgain() {
        var follower = following([spin("a", at: 0)])
        XCTAssertEqual(follower.update(now: at(0)).downloads.map(\.spinID), ["a"])
        XCTAssertEqual(follower.downloaded("a", .failure(.cancelled("https://files.test/a.mp3"))), .quiet)
        XCTAssertEqual(follower.update(now: at(1)).downloads.map(\.spinID), ["a"])
    }

    func testALocalFolderFileIsPlayedWhereItIsWithoutADownload() {
        let local = spin("a", at: -1, url: "file:///music/a.flac")
        var follower = following([local]) { url in url.hasPrefix("file:///music/") ? String(url.dropFirst(7)) : nil }
        let program = follower.update(now: at(0))
        XCTAssertEqual(program.downloads, [])
        XCTAssertEqual(program.entries, [ProgramEntry(spin: local, file: "/music/a.flac")])
        XCTAssertEqual(program.audible, .ready(local))
    }

    func testAFetchKeepsKnownSpinsInPlaceShiftsNewOnesAndForgetsWhatHasLeftAndEnded() {
        let first = spin("a", at: -30), second = spin("b", at: -10), third = spin("c", at: 10)
        var follower = following([first, second, third])
        _ = follower.update(now: at(0))
        _ = follower.downloaded("a", .success("/cache/a.mp3"))
        _ = follower.downloaded("b", .success("/cache/b.mp3"))
        // The server moves c's airtime (a locked spin keeps its place here) and drops a and b; a has ended,
        // b still sounds. A new spin d arrives, shifted 3600 s back for time-shifted playback.
        follower.adopt([spin("c", at: 50), spin("d", at: -3570)], shift: 3600, now: at(0))
        XCTAssertEqual(follower.schedule.spins.map(\.id), ["b", "c", "d"], "in airtime order")
        XCTAssertEqual(follower.schedule.spins[1].airtime, at(10))
        XCTAssertEqual(follower.schedule.spins[2].airtime, at(30))
        XCTAssertEqual(Set(follower.files.keys), ["b"], "a's file is forgotten with a")
        XCTAssertEqual(follower.requested, ["b", "c"], "c's download is still on its way")
    }

    func testAFetchIsDueAtEachSpinStartAndOnceTheRefreshIntervalHasPassed() {
        var follower = following([spin("a", at: -5), spin("b", at: 15)])
        follower.fetched(at: 100, now: at(0))
        XCTAssertFalse(follower.refreshDue(now: at(1), at: 101), "the first fetch counts for the spin heard then")
        XCTAssertTrue(follower.refreshDue(now: at(15), at: 115), "b started")
        follower.fetched(at: 115)
        XCTAssertFalse(follower.refreshDue(now: at(16), at: 116))
        XCTAssertFalse(follower.refreshDue(now: at(34.9), at: 134.9))
        XCTAssertTrue(follower.refreshDue(now: at(35), at: 135), "20 s since the last fetch")
        follower.fetched(at: 135)
        XCTAssertTrue(follower.refreshDue(now: at(50), at: 155), "the gap after the last spin fetches on the interval")
    }

    func testItSleepsUntilTheProgramNextChangesAndNeverMoreThanItsLimit() {
        var follower = following([spin("a", at: -5), spin("b", at: 0.4), spin("c", at: 600.7)])
        follower.fetched(at: 100)
        for limit in [1.0, 600] {
            XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(0), at: 100, atMost: limit), 0.4, accuracy: 1e-6, "b starts")
            XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(0.5), at: 100.5, atMost: limit), 0.2, accuracy: 1e-6,
                           "c comes within the lookahead")
            XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(2), at: 119.7, atMost: limit), 0.3, accuracy: 1e-6, "the refresh is due")
            XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(2), at: 125, atMost: limit), 0.005, "never a busy loop")
        }
        XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(2), at: 102, atMost: 1), 1, "at most the limit")
        XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(2), at: 102, atMost: 600), 13, accuracy: 1e-6, "a ends")
        follower.fetched(at: 120)
        XCTAssertEqual(follower.secondsUntilTheProgramChanges(now: at(21), at: 121, atMost: 600), 19, accuracy: 1e-6,
                       "nothing changes before the refresh")
    }
}
