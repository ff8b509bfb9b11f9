import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 7: internet radio streams play through the same mixer, show their ICY titles, and survive a
/// half-open connection, a dead server, garbage and broken metadata by reconnecting by themselves.
/// Against the tests' own fault-injecting server (`Tests/Support/stream_server.py`).
final class StreamTests: XCTestCase {
    final class Record: Sendable {
        let states = Mutex<[PlayerState]>([])
        let notices = Mutex<[String]>([])

        var titles: [String] {
            states.withLock { states in
                var titles: [String] = []
                for case .playing(.stream(let playing)) in states where titles.last != playing.title { titles.append(playing.title) }
                return titles
            }
        }
    }

    struct Rig {
        let card: TestCard
        let player: StationPlayer
        let engine: LiveEngine
        let record: Record
    }

    /// The shared HLS server (HLSStreamTests) ends with this class's tests.
    override class func tearDown() {
        HLSServer.stopShared()
        super.tearDown()
    }

    static func mp3Mount() throws -> StreamServer.Mount {
        StreamServer.Mount(path: "/tone.mp3", file: try Fixtures.tone(600, seconds: 60, rate: 44100, codec: .mp3), contentType: "audio/mpeg", seconds: 60)
    }

    static func aacMount() throws -> StreamServer.Mount {
        StreamServer.Mount(path: "/tone.aac", file: try Fixtures.tone(900, seconds: 60, rate: 48000, codec: .aac), contentType: "audio/aac", seconds: 60)
    }

    func rig() throws -> Rig {
        let card = TestCard()
        let record = Record()
        let stack = PlayerStack(api: "http://127.0.0.1:9", cache: try AudioCache(directory: Fixtures.temporaryDirectory("stream"), budgetBytes: 16 << 20),
                                output: .device(rate: 48000, open: card.open, probeInterval: 0.5))
        let (engine, player) = (stack.engine, stack.player)
        Task {
            for await event in player.events {
                switch event {
                case .state(let state): record.states.withLock { $0.append(state) }
                case .notice(let text): record.notices.withLock { $0.append(text) }
                case .network: break
                }
            }
        }
        engine.start()
        addTeardownBlock { await stack.shutdown() }
        return Rig(card: card, player: player, engine: engine, record: record)
    }

    /// The tone's amplitude in each 10 ms window of what the card played, from `from` seconds on.
    func levels(_ rig: Rig, _ frequency: Double, from: Double = 0) -> [Double] {
        guard let samples = rig.card.audio?.left else { return [] }
        let analysis = SignalAnalysis(samples: samples, rate: 48000)
        return stride(from: Int(from * 48000), to: samples.count - 480, by: 480).map { analysis.amplitude(of: frequency, windowStart: $0) }
    }

    /// A fresh fault server with the 600 Hz MP3 mount, and a rig playing it.
    func playingMP3Stream(file: StaticString = #filePath, line: UInt = #line) async throws -> (StreamServer, Rig) {
        let mount = try Self.mp3Mount()
        let server = try StreamServer(mounts: [mount])
        let rig = try rig()
        await rig.player.play(stream: StreamStation(name: "test", url: server.url(mount.path)))
        let playing = try await waitUntil(5) { await self.isPlaying(rig.player) }
        XCTAssertTrue(playing, "playing within 5 s", file: file, line: line)
        return (server, rig)
    }

    func isPlaying(_ player: StationPlayer) async -> Bool {
        if case .playing = await player.state { return true }
        return false
    }

    static let titles = ["Artist One - Song One", "Artist Two - Song Two", "Artist Three - Song Three"]

    /// Plays `mount` of a fresh server for `seconds` and checks the tone is there from start to end, unbroken.
    func assertPlaysContinuously(_ mount: StreamServer.Mount, frequency: Double, seconds: Double = 7) async throws {
        let server = try StreamServer(mounts: [mount], titles: Self.titles, titleSeconds: 2)
        try await assertPlaysContinuously(url: server.url(mount.path), titles: Self.titles, frequency: frequency, seconds: seconds,
                                          name: "Playola Test Stream")
    }

    /// Plays `url` for `seconds` and checks the tone is there from start to end, unbroken, and that the
    /// titles (rotating every 2 s) arrive in order; `titles` nil: a stream without titles.
    func assertPlaysContinuously(url: String, titles: [String]?, frequency: Double, seconds: Double, name: String?) async throws {
        let rig = try rig()
        await rig.player.play(stream: StreamStation(name: "test", url: url))
        let started = Date()
        let playing = try await waitUntil(5) { await self.isPlaying(rig.player) }
        XCTAssertTrue(playing, "playing within 5 s")
        print("\(url): playing \(Date().timeIntervalSince(started)) s after play; notices: \(rig.record.notices.withLock { $0 })")
        try await Task.sleep(for: .seconds(seconds))
        let levels = levels(rig, frequency)
        guard let first = levels.firstIndex(where: { $0 > 0.2 }) else { return XCTFail("the \(Int(frequency)) Hz tone never sounded") }
        // Past the 20 ms ramp-in, every window until the last holds the tone at its level: no gap, no dropout.
        let steady = levels[(first + 3)...].dropLast(2)
        XCTAssertGreaterThan(steady.count, Int(seconds * 100) - 100, "seconds of audio")
        let lowest = Double((steady.firstIndex(of: steady.min() ?? 0) ?? first) - first) / 100
        let notices = rig.record.notices.withLock { $0 }
        XCTAssertGreaterThan(steady.min() ?? 0, 0.2, "the tone never drops out (amplitude \(Fixtures.amplitude)); the lowest 10 ms "
                             + "window \(lowest) s after the first sound; notices: \(notices)")
        XCTAssertLessThan(steady.max() ?? 1, 0.3)
        let samples = rig.card.audio!.left
        let click = SignalAnalysis(samples: samples, rate: 48000).largestThirdDifference(in: (first * 480)..<(samples.count - 480))
        XCTAssertLessThan(click.value, 0.012, "no click, from the ramp-in on (the largest \(Double(click.at - first * 480) / 48000) s "
                          + "after the first sound, of \(Double(samples.count) / 48000) s; notices: \(rig.record.notices.withLock { $0 }))")
        guard let titles else { return }
        // The titles the server sent, in its order (it rotates through them, starting at the first).
        let seen = rig.record.titles.filter { $0.hasPrefix("Song") }
        XCTAssertGreaterThanOrEqual(seen.count, 3, "\(seen)")
        let expected = (0..<seen.count).map { titles[($0 + (titles.firstIndex { $0.hasSuffix(seen.first ?? "") } ?? 0)) % titles.count] }
        XCTAssertEqual(seen, expected.map { String($0.split(separator: " - ")[1]) })
        let info = await rig.player.streamInfo
        if let name {
            XCTAssertEqual(info?.name, name)
            XCTAssertNotNil(info?.bitrate, "icy-br") // icecast has none from an ffmpeg source that sets none
        }
        if case .playing(let playing) = await rig.player.state {
            XCTAssertTrue(playing.announcement.artist.hasPrefix("Artist"), "artist split from the title: \(playing.announcement.artist)")
        }
    }

    func testAnMP3StreamPlaysWithItsTitlesInOrder() async throws {
        try await assertPlaysContinuously(try Self.mp3Mount(), frequency: 600)
    }

    func testAnAACStreamPlaysWithItsTitlesInOrder() async throws {
        try await assertPlaysContinuously(try Self.aacMount(), frequency: 900)
    }

    /// "Must be shown" 1: a real icecast2 on 127.0.0.1 fed by ffmpeg source clients. Both mounts play
    /// unbroken at the source's tone, and the titles the source sets arrive in order.
    func testARealIcecastServerMP3AndAACMountsPlayWithTheirTitles() async throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/icecast2") else { throw XCTSkip("icecast2 is not installed (script/setup installs it)") }
        // Titles last 3 s: icecast's metadata blocks come every 1–1.3 s here, and under load the harness's admin
        // requests can be a second late, which with 2 s titles let one title pass between two blocks unseen.
        let icecast = try IcecastServer(mp3: try Fixtures.tone(600, seconds: 60, rate: 44100, codec: .mp3),
                                        aac: try Fixtures.tone(900, seconds: 60, rate: 48000, codec: .aac),
                                        titles: Self.titles, titleSeconds: 3)
        try await assertPlaysContinuously(url: icecast.url("/tone.mp3"), titles: Self.titles, frequency: 600, seconds: 10, name: nil)
        try await assertPlaysContinuously(url: icecast.url("/tone.aac"), titles: Self.titles, frequency: 900, seconds: 10, name: nil)
    }

    /// Icecast's Ogg mounts, whose source changes the title by starting a new chain link with new tags: the
    /// Vorbis and the Opus mount each play unbroken, links joined without a gap, and the titles arrive in order.
    func testARealIcecastServerOggVorbisAndOpusMountsPlayWithTheirTitles() async throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/icecast2") else { throw XCTSkip("icecast2 is not installed (script/setup installs it)") }
        let icecast = try IcecastServer(mp3: try Fixtures.tone(600, seconds: 60, rate: 44100, codec: .mp3),
                                        aac: try Fixtures.tone(900, seconds: 60, rate: 48000, codec: .aac),
                                        titles: Self.titles, titleSeconds: 2, ogg: true)
        try await assertPlaysContinuously(url: icecast.url("/tone.ogg"), titles: Self.titles, frequency: 700, seconds: 7, name: nil)
        try await assertPlaysContinuously(url: icecast.url("/tone.opus"), titles: Self.titles, frequency: 1000, seconds: 7, name: nil)
    }

    /// Headers, then silence on an open socket: a stall within 10 s, then a new connection that plays.
    func testAHalfOpenConnectionIsDetectedWithinTenSecondsAndReconnected() async throws {
        let mount = try Self.mp3Mount()
        let server = try StreamServer(mounts: [mount])
        try server.fault([["mode": "halfopen"]])
        let rig = try rig()
        await rig.player.play(stream: StreamStation(name: "test", url: server.url(mount.path)))
        let playing = try await waitUntil(15) { await self.isPlaying(rig.player) }
        XCTAssertTrue(playing)
        let requests = try server.requests()
        XCTAssertGreaterThanOrEqual(requests.count, 2)
        guard requests.count >= 2, let first = requests[0]["t"] as? Double, let closed = requests[0]["closed"] as? Double,
              let second = requests[1]["t"] as? Double else { return XCTFail("\(requests)") }
        XCTAssertEqual(requests[0]["fault"] as? String, "halfopen")
        print("half-open connection dropped after \(closed - first) s, a new one made after \(second - first) s")
        XCTAssertLessThan(closed - first, 10, "detected within 10 s")
        XCTAssertLessThan(second - closed, 1.5, "reconnected after the first backoff step (1 s ± 20 %)")
        XCTAssertTrue(rig.record.notices.withLock { $0 }.contains { $0.contains("no data for 8 s") }, "\(rig.record.notices.withLock { $0 })")
        try await Task.sleep(for: .seconds(1))
        XCTAssertGreaterThan(levels(rig, 600).suffix(50).min() ?? 0, 0.2, "the new connection plays")
    }

    /// Garbage, then a metadata block that claims more than the server sends, then a refused connection and
    /// a 503: each is named, none crashes, and the player reconnects until the stream plays.
    func testGarbageBrokenMetadataAndRefusalsAreNamedAndReconnected() async throws {
        let mount = try Self.mp3Mount()
        let server = try StreamServer(mounts: [mount])
        try server.fault([["mode": "garbage"], ["mode": "badmeta"], ["mode": "refuse"], ["mode": "http_error", "status": 503]])
        let rig = try rig()
        var station = StreamStation(name: "test", url: server.url(mount.path))
        station.maximumBackoff = 2 // keeps the test short; the doubling itself is tested below
        await rig.player.play(stream: station)
        let playing = try await waitUntil(30) { 
            let playing = await self.isPlaying(rig.player)
            return try playing && server.requests().count >= 5
        }
        XCTAssertTrue(playing)
        let notices = rig.record.notices.withLock { $0 }
        print(notices.joined(separator: "\n"))
        XCTAssertTrue(notices.contains { $0.contains("no MPEG audio frame") }, "garbage is named")
        XCTAssertTrue(notices.contains { $0.contains("inside a metadata block") }, "the cut metadata block is named")
        XCTAssertTrue(notices.contains { $0.contains("HTTP 503") }, "the 503 is named")
        XCTAssertEqual(try server.requests().map { $0["fault"] as? String ?? "none" }.prefix(4), ["garbage", "badmeta", "refuse", "http_error"])
        try await Task.sleep(for: .seconds(1))
        XCTAssertGreaterThan(levels(rig, 600).suffix(50).min() ?? 0, 0.2, "the stream plays in the end")
    }

    /// The server dies; 30 s later it is back: playback resumes by itself, with backoff in between
    /// (not a connection attempt per tick).
    func testTheServerKilledAndRestartedThirtySecondsLaterResumesByItself() async throws {
        let (server, rig) = try await playingMP3Stream()
        server.stop()
        let lost = try await waitUntil(5) { if case .loading = await rig.player.state { true } else { false } }
        XCTAssertTrue(lost, "reconnecting shows as loading")
        try await Task.sleep(for: .seconds(30))
        let attempts = rig.record.notices.withLock { $0 }.filter { $0.contains("reconnecting in") }
        print("while the server was away: \(attempts.count) attempts\n" + attempts.joined(separator: "\n"))
        XCTAssertGreaterThanOrEqual(attempts.count, 3, "it keeps trying")
        XCTAssertLessThanOrEqual(attempts.count, 7, "with a backoff: 1, 2, 4, 8, 16 s …")
        let problem = await rig.player.streamInfo?.problem
        XCTAssertNotNil(problem, "status says why it is reconnecting")
        try server.start()
        let back = Date()
        let resumed = try await waitUntil(40) { await self.isPlaying(rig.player) }
        XCTAssertTrue(resumed)
        print("resumed \(Date().timeIntervalSince(back)) s after the server came back")
        let cleared = await rig.player.streamInfo?.problem
        XCTAssertNil(cleared)
        try await Task.sleep(for: .seconds(1))
        XCTAssertGreaterThan(levels(rig, 600).suffix(50).min() ?? 0, 0.2)
    }

    /// A `.pls`, `.m3u` or `.m3u8` whose first entry is dead: the next one plays.
    func testAPlaylistIsResolvedAndItsEntriesTriedInOrder() async throws {
        let mount = try Self.mp3Mount()
        let server = try StreamServer(mounts: [mount])
        for playlist in ["/playlist.pls", "/playlist.m3u", "/playlist.m3u8"] {
            _ = try server.control("DELETE", "/_requests")
            let rig = try rig()
            await rig.player.play(stream: StreamStation(name: "test", url: server.url(playlist)))
            let playing = try await waitUntil(10) { await self.isPlaying(rig.player) }
            XCTAssertTrue(playing, playlist)
            XCTAssertEqual(try server.requests().compactMap { $0["path"] as? String }.prefix(2), [playlist, "/tone.mp3"])
            let info = await rig.player.streamInfo
            XCTAssertEqual(info?.url, server.url("/tone.mp3"))
            await rig.player.stop()
        }
        // A redirect is followed.
        _ = try server.control("DELETE", "/_requests")
        let rig = try rig()
        await rig.player.play(stream: StreamStation(name: "test", url: server.url("/redirect?to=/tone.mp3")))
        let playing = try await waitUntil(10) { await self.isPlaying(rig.player) }
        XCTAssertTrue(playing, "redirect")
        XCTAssertEqual(try server.requests().compactMap { $0["path"] as? String }.prefix(2), ["/redirect?to=/tone.mp3", "/tone.mp3"])
    }

    /// A SHOUTcast v1 server answers "ICY 200 OK" rather than an HTTP status line: it plays all the same.
    func testAShoutcastICY200StatusLineIsAccepted() async throws {
        let mount = try Self.mp3Mount()
        let server = try StreamServer(mounts: [mount], options: ["--icy-status-line"])
        let rig = try rig()
        await rig.player.play(stream: StreamStation(name: "test", url: server.url(mount.path)))
        let playing = try await waitUntil(5) { await self.isPlaying(rig.player) }
        XCTAssertTrue(playing, "\(rig.record.notices.withLock { $0 })")
        try await Task.sleep(for: .seconds(1))
        XCTAssertGreaterThan(levels(rig, 600).suffix(50).min() ?? 0, 0.2)
    }

    /// The connection stalls mid-play: the jitter buffer plays out, the output goes quiet (no stale or
    /// broken audio), and after 8 s without a byte a new connection plays again.
    func testAStallMidPlayDrainsTheBufferToSilenceThenReconnects() async throws {
        let mount = try Self.mp3Mount()
        let server = try StreamServer(mounts: [mount])
        try server.fault([["mode": "stall_after", "bytes": mount.bytesPerSecond * 4]])
        let rig = try rig()
        var station = StreamStation(name: "test", url: server.url(mount.path))
        station.headers = ["X-Playola-Test: stall"]
        await rig.player.play(stream: station)
        let playing = try await waitUntil(5) { await self.isPlaying(rig.player) }
        XCTAssertTrue(playing)
        let reconnected = try await waitUntil(20) { try server.requests().count >= 2 }
        XCTAssertTrue(reconnected)
        try await Task.sleep(for: .seconds(3))
        let levels = levels(rig, 600)
        guard let start = levels.firstIndex(where: { $0 > 0.2 }),
              let quiet = levels[start...].firstIndex(where: { $0 < 0.01 }),
              let again = levels[quiet...].firstIndex(where: { $0 > 0.2 }) else { return XCTFail("tone, silence, tone: \(levels.count) windows") }
        print("played \(Double(quiet - start) / 100) s, silent \(Double(again - quiet) / 100) s, then played again")
        XCTAssertEqual(Double(quiet - start) / 100, 4, accuracy: 0.5, "the 4 s that arrived played out (burst included)")
        XCTAssertLessThan(levels[quiet..<(again - 2)].max() ?? 1, 0.01, "silence while stalled: nothing stale, nothing broken")
        // The buffer ran dry there: it fades out over a few ms rather than stopping mid-wave.
        let samples = rig.card.audio!.left
        let dry = SignalAnalysis(samples: samples, rate: 48000).largestThirdDifference(in: ((quiet - 100) * 480)..<((quiet + 20) * 480))
        XCTAssertLessThan(dry.value, 0.012, "no click where the buffer ran dry (at \(Double(dry.at) / 48000) s)")
        XCTAssertGreaterThan(levels[(again + 3)...].dropLast(2).min() ?? 0, 0.2, "the new connection plays unbroken")
        let headers = try server.requests().compactMap { $0["headers"] as? [String: Any] }
        XCTAssertEqual(headers.map { $0["x-playola-test"] as? String }, ["stall", "stall"], "custom headers on every connection")
    }

    /// The device goes away mid-stream: the connection and its buffer are dropped; when it is back, a fresh
    /// connection plays (live), not the stale buffer.
    func testTheDeviceGoingAwayDropsTheStreamAndAFreshConnectionPlaysOnReturn() async throws {
        let (server, rig) = try await playingMP3Stream()
        rig.card.fault.withLock { $0 = .unplugged }
        let paused = try await waitUntil(3) { if case .paused(_, .deviceLost) = await rig.player.state { true } else { false } }
        XCTAssertTrue(paused)
        try await Task.sleep(for: .seconds(1))
        let closed = try server.requests().allSatisfy { !($0["closed"] is NSNull) && $0["closed"] != nil }
        XCTAssertTrue(closed, "no connection is kept while the device is away")
        let before = try server.requests().count
        rig.card.fault.withLock { $0 = .none }
        let resumed = try await waitUntil(5) { await self.isPlaying(rig.player) }
        XCTAssertTrue(resumed)
        XCTAssertEqual(try server.requests().count, before + 1, "one fresh connection")
        try await Task.sleep(for: .seconds(1))
        XCTAssertGreaterThan(levels(rig, 600).suffix(50).min() ?? 0, 0.2)
    }

    /// A stream reports no listening session, but switching to one ends the Playola station's session.
    func testSwitchingFromAPlayolaStationToAStreamEndsItsListeningSession() async throws {
        let api = try FakePlayola()
        try api.validTokens(["good"])
        let file = try Fixtures.tone(600, seconds: 20, rate: 48000, codec: .mp3)
        try api.addFile(file, as: "song.mp3")
        try api.serve(station: "p", spins: [Spin(
            id: "song", stationID: "p", airtime: Date().addingTimeInterval(-2), startingVolume: 1, fades: [],
            audioBlock: AudioBlock(id: "song", title: "song", artist: "a", durationMS: 20_000, endOfMessageMS: 20_000,
                                   downloadURL: api.fileURL("song.mp3")))])
        let mount = try Self.mp3Mount()
        let radio = try StreamServer(mounts: [mount])
        let stack = PlayerStack(api: api.base, cache: try AudioCache(directory: Fixtures.temporaryDirectory("stream-session"), budgetBytes: 16 << 20),
                                output: .sink(PacedSink()),
                                sessions: { ListeningSessionReporter(api: $0, deviceID: "DEVICE-1", interval: 0.3, token: { "good" }) })
        let player = stack.player
        stack.engine.start()
        addTeardownBlock { await stack.shutdown() }
        await player.play(stationID: "p")
        let playing = try await waitUntil(5) { await self.isPlaying(player) }
        XCTAssertTrue(playing)
        await player.play(stream: StreamStation(name: "radio", url: radio.url(mount.path)))
        let streaming = try await waitUntil(5) { if case .playing(.stream(let playing)) = await player.state { playing.station == "radio" } else { false } }
        XCTAssertTrue(streaming)
        try await Task.sleep(for: .seconds(1))
        await stack.sessions?.flush()
        let paths = try api.requests(matching: "/v1/listeningSessions").compactMap { $0["path"] as? String }
        XCTAssertEqual(paths.last.map { $0.hasSuffix("/end") }, true, "the Playola session ended: \(paths)")
        XCTAssertFalse(paths.contains { $0.contains("radio") }, "nothing is reported for the stream")
    }

    func testTheBackoffDoublesFromOneSecondToSixtyWithJitter() {
        let station = StreamStation(name: "s", url: "http://x")
        XCTAssertEqual((1...8).map { station.backoff(attempt: $0, jitter: 0.5) }, [1, 2, 4, 8, 16, 32, 60, 60])
        XCTAssertEqual(station.backoff(attempt: 1, jitter: 0), 0.8, accuracy: 1e-9)
        XCTAssertEqual(station.backoff(attempt: 100, jitter: 1), 72, accuracy: 1e-9)
    }
}
