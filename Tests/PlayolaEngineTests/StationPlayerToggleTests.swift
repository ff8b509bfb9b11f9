import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// The buttons' toggles as the player decides them, on a local folder (a 700 Hz tone) played into a sink
/// paced like a device: each press is one call, decided on the player's own state.
final class StationPlayerToggleTests: XCTestCase {
    private func rig() throws -> (PacedPlayer, StationPlayer.PlayRequest) {
        let folder = Fixtures.temporaryDirectory("toggles")
        try FileManager.default.copyItem(atPath: try Fixtures.tone(700, seconds: 60, rate: 48000, codec: .mp3), toPath: folder + "/a.mp3")
        let rig = try PacedPlayer(server: try FakePlayola(), cacheBudget: 32 << 20, cacheFolder: "toggles-cache", for: self)
        return (rig, .schedule(LocalFolderSource(stationID: "home", path: folder), at: nil))
    }

    private func playing(_ rig: PacedPlayer) -> Bool { rig.amplitude(700, secondsAgo: 0.2) > 0.2 }
    private func silent(_ rig: PacedPlayer) -> Bool { rig.amplitude(700, secondsAgo: 0.15) < 0.001 }

    /// A press of the interrupt button, and the station plays again.
    private func pressResumes(_ rig: PacedPlayer, file: StaticString = #filePath, line: UInt = #line) async throws {
        await rig.player.toggleInterruption()
        try await Task.sleep(for: .seconds(1.5))
        let resumed = await rig.player.state
        guard case .playing = resumed else { return XCTFail("\(resumed)", file: file, line: line) }
        XCTAssertTrue(playing(rig), "the tone again", file: file, line: line)
    }

    /// A press of the stop button, and silence.
    private func pressStops(_ rig: PacedPlayer, _ request: StationPlayer.PlayRequest, file: StaticString = #filePath,
                            line: UInt = #line) async throws {
        let toggled = await rig.player.toggleStop(orPlay: request)
        XCTAssertEqual(toggled, .stopped, file: file, line: line)
        try await Task.sleep(for: .seconds(1))
        let state = await rig.player.state
        XCTAssertEqual(state, .idle, file: file, line: line)
        XCTAssertTrue(silent(rig), "silence after the stop", file: file, line: line)
    }

    func testTheStopToggleStopsWhatIsOnAndPlaysWhenStopped() async throws {
        let (rig, home) = try rig()
        var toggled = await rig.player.toggleStop(orPlay: home)
        XCTAssertEqual(toggled, .played, "nothing on: the press plays")
        try await Task.sleep(for: .seconds(1.5))
        XCTAssertTrue(playing(rig))
        try await pressStops(rig, home)
        toggled = await rig.player.toggleStop(orPlay: nil)
        XCTAssertEqual(toggled, .nothing, "stopped with nothing to play")
        // A press while the station is still loading stops it: loading is on.
        await rig.player.play(home)
        try await pressStops(rig, home)
    }

    func testTheInterruptTogglePausesAndResumesAtTheLivePosition() async throws {
        let (rig, home) = try rig()
        await rig.player.play(home)
        try await Task.sleep(for: .seconds(1.5))
        await rig.player.toggleInterruption()
        try await Task.sleep(for: .seconds(0.5))
        let paused = await rig.player.state
        guard case .paused(.spin?, .interruption) = paused else { return XCTFail("\(paused)") }
        XCTAssertTrue(silent(rig))
        try await pressResumes(rig)
    }

    /// Interrupted while loading, the state says idle; the second press still resumes (the state's name said
    /// "not paused", and a controller deciding on it paused again, which did nothing).
    func testAPressInterruptingALoadResumesOnTheNext() async throws {
        let (rig, _) = try rig()
        let file = try Fixtures.tone(700, seconds: 60, rate: 48000, codec: .mp3)
        try rig.server.addFile(file, as: "a.mp3")
        try rig.server.serve(station: "slow", spins: [
            Spin(id: "a", stationID: "slow", airtime: Date().addingTimeInterval(-5), startingVolume: 1, fades: [],
                 audioBlock: AudioBlock(id: "a", title: "a", artist: "t", durationMS: 60_000, endOfMessageMS: 60_000,
                                        downloadURL: rig.server.fileURL("a.mp3"))),
        ])
        // The first schedule answers after a second: the press comes while the station loads.
        try rig.server.fault([["match": "/schedule", "action": "delay", "seconds": 1, "times": 1]])
        await rig.player.play(stationID: "slow")
        let loading = await rig.player.state
        XCTAssertEqual(loading, .loading(0))
        await rig.player.toggleInterruption()
        let interrupted = await rig.player.state
        XCTAssertEqual(interrupted, .idle)
        try await pressResumes(rig)
    }

    /// Paused for want of a device, a press is the user's pause: it holds when the device is back (a
    /// controller reading "paused" resumed instead, which did nothing, and the station played on its return).
    func testAPressWhileTheDeviceIsAwayIsAPauseThatHolds() async throws {
        let (rig, home) = try rig()
        await rig.player.play(home)
        try await Task.sleep(for: .seconds(1.5))
        await rig.player.deviceChanged(.lost(.deviceGone(device: "test-card", reason: "No such device")))
        let away = await rig.player.state
        guard case .paused(_, .deviceLost) = away else { return XCTFail("\(away)") }
        await rig.player.toggleInterruption()
        await rig.player.deviceChanged(.opened)
        try await Task.sleep(for: .seconds(1))
        let back = await rig.player.state
        guard case .paused(_, .interruption) = back else { return XCTFail("\(back)") }
        XCTAssertTrue(silent(rig))
        try await pressResumes(rig)
    }
}
