import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 6, "must be shown" 1 and 2: the audio device comes and goes behind the `AudioSink` protocol;
/// the player pauses with `deviceLost`, uses no CPU while it waits, and resumes by itself at the live
/// position — unless the user stopped meanwhile.
final class HotplugTests: XCTestCase {
    typealias Card = TestCard

    final class Record: Sendable {
        let deviceEvents = Mutex<[LiveEngine.DeviceEvent]>([])
        let states = Mutex<[PlayerState]>([])
    }

    struct Rig {
        let card: Card
        let player: StationPlayer
        let engine: LiveEngine
        let record: Record
        let server: FakePlayola
    }

    /// A station: "first" (600 Hz) from 5 s ago to 3 s from now, then "second" (900 Hz).
    func rig(startUnplugged: Bool = false, idleClose: Double? = nil) async throws -> Rig {
        let server = try FakePlayola()
        let tones = [("first", 600.0, -5.0, 8.0), ("second", 900.0, 3.0, 30.0)]
        for (id, frequency, _, seconds) in tones {
            try server.addFile(try Fixtures.tone(frequency, seconds: seconds, rate: 48000, codec: .mp3), as: "\(id).mp3")
        }
        // The schedule's clock starts once the files are made: encoding them took over a second in a loaded
        // gate run, the first spin had all but ended, and the 600 Hz the tests listen for with it.
        let now = Date()
        var spins: [Spin] = []
        for (id, _, offset, seconds) in tones {
            spins.append(Spin(id: id, stationID: "hot", airtime: now.addingTimeInterval(offset), startingVolume: 1, fades: [],
                              audioBlock: AudioBlock(id: id, title: id, artist: "t", durationMS: Int(seconds * 1000),
                                                     endOfMessageMS: Int(seconds * 1000), downloadURL: server.fileURL("\(id).mp3"))))
        }
        try server.serve(station: "hot", spins: spins)
        let card = Card()
        if startUnplugged { card.fault.withLock { $0 = .unplugged } }
        let record = Record()
        let stack = PlayerStack(api: server.base, cache: try AudioCache(directory: Fixtures.temporaryDirectory("hotplug"), budgetBytes: 32 << 20),
                                output: .device(rate: 48000, open: card.open, probeInterval: 0.5, idleClose: idleClose),
                                onDevice: { event in record.deviceEvents.withLock { $0.append(event) } })
        let (engine, player) = (stack.engine, stack.player)
        Task { for await event in player.events { if case .state(let state) = event { record.states.withLock { $0.append(state) } } } }
        engine.start()
        // A player left running keeps ticking in this process and would count against the next test's CPU.
        addTeardownBlock { await stack.shutdown() }
        return Rig(card: card, player: player, engine: engine, record: record, server: server)
    }

    func level(_ rig: Rig, _ frequency: Double) -> Double {
        guard let samples = rig.card.audio?.left, samples.count > 48000 / 2 else { return 0 }
        return SignalAnalysis(samples: samples, rate: 48000).amplitude(of: frequency, around: samples.count - 48000 / 10)
    }

    /// Plays, unplugs the card, does `meanwhile` while it is away, plugs it back and lets the engine find it.
    func outage(_ rig: Rig, meanwhile: () async -> Void) async throws {
        await rig.player.play(stationID: "hot")
        try await Task.sleep(for: .seconds(1.2))
        rig.card.fault.withLock { $0 = .unplugged }
        try await Task.sleep(for: .seconds(0.5))
        await meanwhile()
        rig.card.fault.withLock { $0 = .none }
        try await Task.sleep(for: .seconds(1.5))
    }

    func testTheDeviceVanishesMidWriteAndReturnsThreeSecondsLaterAtTheLivePosition() async throws {
        let rig = try await rig()
        await rig.player.play(stationID: "hot")
        try await Task.sleep(for: .seconds(1.2))
        XCTAssertGreaterThan(level(rig, 600), 0.2, "playing the first spin")
        rig.card.fault.withLock { $0 = .unplugged }
        try await Task.sleep(for: .seconds(0.5))
        let state = await rig.player.state
        guard case .paused(.spin(let spin)?, .deviceLost) = state else { return XCTFail("\(state)") }
        XCTAssertEqual(spin.id, "first")
        // The engine's threads only: the process also holds the test's server and players other tests are
        // tearing down (1.07 % of the process in one CI run, the engine's share unknown).
        let cpuBefore = CPUProbe.engineThreads()
        XCTAssertGreaterThanOrEqual(cpuBefore.count, 2, "the engine's render and decode threads, by name")
        try await Task.sleep(for: .seconds(2.5))
        let cpuDuring = CPUProbe.engineThreadSeconds(since: cpuBefore)
        print("CPU of the engine's threads while the device was away: \(cpuDuring) s in 2.5 s (\(cpuDuring / 2.5 * 100) %)")
        XCTAssertLessThan(cpuDuring / 2.5, 0.01, "CPU while the device is away: \(cpuDuring) s in 2.5 s")
        rig.card.fault.withLock { $0 = .none } // 3 s after it went: the schedule has moved on to the second spin
        try await Task.sleep(for: .seconds(1.2))
        let resumed = await rig.player.state
        guard case .playing(.spin(let now)) = resumed else { return XCTFail("\(resumed)") }
        XCTAssertEqual(now.id, "second")
        XCTAssertGreaterThan(level(rig, 900), 0.2, "the live position: the second spin")
        XCTAssertLessThan(level(rig, 600), 0.001, "not the spin that was playing when the device went")
        let events = rig.record.deviceEvents.withLock { $0 }
        XCTAssertEqual(events.filter { if case .lost = $0 { true } else { false } }.count, 1, "said once: \(events)")
        XCTAssertEqual(rig.card.opens.load(ordering: .relaxed), 2, "the first device, then a new one")
    }

    func testAnUnderrunStormIsRecoveredByReopening() async throws {
        let rig = try await rig()
        await rig.player.play(stationID: "hot")
        try await Task.sleep(for: .seconds(1.2))
        rig.card.fault.withLock { $0 = .xrunStorm }
        try await Task.sleep(for: .seconds(0.3))
        rig.card.fault.withLock { $0 = .none }
        // Heard again 0.45 s after the storm on a quiet machine (the card is probed every 0.5 s, and `level`
        // looks only once the new card holds 0.5 s); loaded gate runs took longer than 1.0 and 1.5 s. What is
        // asked is that it comes back by itself, not how fast: waited for, up to 10 s.
        let back = try await waitUntil(10) { self.level(rig, 600) > 0.2 }
        XCTAssertTrue(back, "the spin is heard again on the reopened card")
        let state = await rig.player.state
        guard case .playing = state else { return XCTFail("\(state)") }
    }

    func testAUserStopDuringTheOutageKeepsThePlayerStopped() async throws {
        let rig = try await rig()
        try await outage(rig) { await rig.player.stop() }
        let state = await rig.player.state
        XCTAssertEqual(state, .idle)
        XCTAssertLessThan(level(rig, 600) + level(rig, 900), 0.001, "silence on the returned device")
    }

    func testAUserPauseDuringTheOutageStaysPaused() async throws {
        let rig = try await rig()
        try await outage(rig) { await rig.player.pauseForInterruption(.interruption) }
        let state = await rig.player.state
        guard case .paused(_, .interruption) = state else { return XCTFail("\(state)") }
        XCTAssertLessThan(level(rig, 600) + level(rig, 900), 0.001)
    }

    func testStartingWithNoDeviceWaitsThenPlays() async throws {
        let rig = try await rig(startUnplugged: true)
        await rig.player.play(stationID: "hot")
        try await Task.sleep(for: .seconds(1.2))
        XCTAssertEqual(rig.card.opens.load(ordering: .relaxed), 0)
        XCTAssertTrue(rig.record.deviceEvents.withLock { $0 }.contains { if case .waiting = $0 { true } else { false } })
        // The spin that would sound is ready: the state says paused for want of a device (it once stayed
        // `loading` for as long as the device was missing).
        let waiting = await rig.player.state
        guard case .paused(.spin(let spin)?, .noDevice) = waiting else { return XCTFail("\(waiting)") }
        XCTAssertEqual(spin.id, "first")
        XCTAssertNil(rig.engine.outputFormat, "no device, no negotiated format")
        rig.card.fault.withLock { $0 = .none }
        rig.engine.wakeProbe() // as the udev rule does
        try await Task.sleep(for: .seconds(1.0))
        let state = await rig.player.state
        guard case .playing = state else { return XCTFail("\(state)") }
        XCTAssertGreaterThan(level(rig, 600), 0.2)
        XCTAssertEqual(rig.engine.outputFormat?.rate, rig.engine.mixRate, "the opened device's rate")
    }

    /// The PCM stays open on silence across a short pause (closing it would make many DACs click), and is
    /// closed only after the idle time; the next play opens it again.
    func testTheDeviceIsClosedOnlyAfterTheIdleTime() async throws {
        let rig = try await rig(idleClose: 1.0)
        await rig.player.play(stationID: "hot")
        try await Task.sleep(for: .seconds(1.2))
        await rig.player.pauseForInterruption(.interruption)
        try await Task.sleep(for: .seconds(0.5))
        await rig.player.resumeAfterInterruption()
        try await Task.sleep(for: .seconds(1.2))
        XCTAssertEqual(rig.card.closes.load(ordering: .relaxed), 0, "open across a short pause")
        XCTAssertGreaterThan(level(rig, 600), 0.2)
        await rig.player.stop()
        try await Task.sleep(for: .seconds(1.8))
        XCTAssertEqual(rig.card.closes.load(ordering: .relaxed), 1, "closed after a second of idle")
        XCTAssertTrue(rig.record.deviceEvents.withLock { $0 }.contains(.closedIdle))
        await rig.player.play(stationID: "hot")
        try await Task.sleep(for: .seconds(1.2))
        XCTAssertEqual(rig.card.opens.load(ordering: .relaxed), 2, "opened again to play")
        let state = await rig.player.state
        guard case .playing = state else { return XCTFail("\(state)") }
        XCTAssertGreaterThan(level(rig, 600) + level(rig, 900), 0.2)
    }
}
