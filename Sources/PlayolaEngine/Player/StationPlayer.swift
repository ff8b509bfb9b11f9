import FoundationEssentials
import PlayolaLive
import PlayolaModel
import PlayolaNetwork
import PlayolaSchedule
import PlayolaStreaming
import PlayolaSupport
import Synchronization

/// Plays a station live. This file is the state machine: the commands, the states they lead to, and the
/// generation each command bumps (the last command wins: work of an older generation publishes nothing).
/// A schedule (a Playola station, a folder) is followed by `StationPlayer+Schedule`, a stream by
/// `StationPlayer+Stream`.
public actor StationPlayer {
    public private(set) var state: PlayerState = .idle
    public nonisolated let events: AsyncStream<PlayerEvent>
    private let continuation: AsyncStream<PlayerEvent>.Continuation

    let api: PlayolaAPI
    let downloader: AudioDownloader
    let engine: LiveEngine
    let clock: ServerCorrectedClock
    let reporter: ListeningSessionReporter?
    public var lookahead: Double = 600
    public var refreshInterval: Double = 20
    /// Downloads run at most this many at once, in airtime order: a cold start over a slow line fetches
    /// the spin that must sound first at a full share of the line, not a tenth of it beside the whole
    /// lookahead's files.
    public var downloadsAtOnce = 2
    public private(set) var volume: Float = 1

    /// The master gain (after the perceptual curve); ramps, so a step never clicks.
    public func setVolume(_ gain: Float) {
        volume = gain
        engine.setGain(gain)
    }

    /// Bass and treble in dB, after the volume.
    public func setTone(bass: Double, treble: Double) { engine.setTone(bass: bass, treble: treble) }

    /// What the player plays.
    enum Station {
        case schedule(any ScheduleSource, shift: Double)
        case stream(StreamStation)

        var name: String {
            switch self {
            case .schedule(let source, _): source.stationID
            case .stream(let station): station.name
            }
        }

        /// Only Playola stations report listening sessions.
        var reportsListening: Bool {
            switch self {
            case .schedule(let source, _): source.reportsListening
            case .stream: false
            }
        }
    }

    var generation = 0
    private var loop: Task<Void, Never>?
    private(set) var station: Station?
    /// The stream playing (or connecting): what its server says about it.
    public internal(set) var streamInfo: StreamInfo?
    /// When the current stream connection started sounding (the `airtime` of its state's spin).
    var streamSoundingSince = Date()
    /// Armed by an interruption of a playing or loading station; consumed by the resume.
    private(set) var resumeArmed = false
    /// The engine has no device: the state says `paused(outputDownReason)` whatever the schedule does.
    var outputDown = false
    var outputDownReason = PauseReason.deviceLost
    /// Whether the station's server answers, and the last network failure.
    public internal(set) var network = NetworkStatus() {
        didSet {
            unreachable.store(network.reachable == false, ordering: .releasing)
            if network != oldValue { continuation.yield(.network(network)) }
        }
    }
    /// `network.reachable == false`, readable from any thread without a hop to the actor (the network LED
    /// is read a few times a second on the GPIO thread).
    private nonisolated let unreachable = Atomic<Bool>(false)
    public nonisolated var cannotReachServer: Bool { unreachable.load(ordering: .acquiring) }
    var reporting: Task<Void, Never>?

    /// The current generation's schedule and what is known of its files (`StationPlayer+Schedule`).
    var follower = ScheduleFollower()
    /// The current loop's sleep (until the program next changes, until a stream could have stalled), which
    /// `wake` ends early.
    private var loopSleep: Task<Void, Never>?
    /// Wakes the schedule loop when the wall clock is set (made with the first schedule followed); nil where
    /// the system cannot say.
    lazy var clockSetWatch = ClockSetWatch(onSet: waker)

    public init(
        api: PlayolaAPI, downloader: AudioDownloader, engine: LiveEngine, clock: ServerCorrectedClock,
        reporter: ListeningSessionReporter? = nil
    ) {
        self.api = api
        self.downloader = downloader
        self.engine = engine
        self.clock = clock
        self.reporter = reporter
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// Plays the Playola station `stationID`; with `at`, the schedule as it aired then (time-shifted playback).
    public func play(stationID: String, at date: Date? = nil) {
        play(PlayolaStationSource(api: api, stationID: stationID), at: date)
    }

    /// Plays any schedule source (a Playola station, a local folder).
    public func play(_ source: any ScheduleSource, at date: Date? = nil) {
        clock.applies = source.followsServerTime
        let shift = date.map { clock.now().timeIntervalSince($0) } ?? 0
        resumeArmed = false
        begin(.schedule(source, shift: shift))
    }

    /// Plays an internet radio stream, reconnecting by itself for as long as it is the station.
    public func play(stream: StreamStation) {
        resumeArmed = false
        begin(.stream(stream))
    }

    public func stop() {
        resumeArmed = false
        station = nil
        halt()
        publish(.idle)
    }

    /// Pauses for an interruption (a button, the device going away). The PCM keeps running on silence.
    public func pauseForInterruption(_ reason: PauseReason) {
        let playing: NowPlaying?
        switch state {
        case .playing(let now): playing = now
        case .loading: playing = nil
        case .paused(let paused, let current) where current.isForTheDevice && reason == .interruption:
            // Paused by the user while the device is away: it must stay paused when the device returns.
            resumeArmed = true
            halt()
            publish(.paused(paused, .interruption))
            return
        case .paused(let paused, _):
            publish(.paused(paused, reason))
            return
        default: return // idle or error: nothing to resume
        }
        resumeArmed = true
        halt()
        publish(playing.map { .paused($0, reason) } ?? .idle)
    }

    /// The audio device went away (or was not there at start, `reason` `.noDevice`): `paused(spin, reason)`.
    /// The schedule clock and downloads go on; the engine re-places the program at the live position when
    /// the device is back.
    public func outputLost(_ reason: PauseReason = .deviceLost) {
        outputDown = true
        outputDownReason = reason
        guard case .stream? = station else {
            if case .playing(let playing) = state { publish(.paused(playing, reason)) }
            return
        }
        // A stream drops its connection and its buffer, which would be stale by the time the device is back.
        switch state {
        case .playing(let playing): halt(); publish(.paused(playing, reason))
        case .loading, .error: halt(); publish(.paused(nil, reason))
        default: break
        }
    }

    /// The device is back: playing again at the next tick (unless the user stopped or paused meanwhile,
    /// which cleared the program and left another state).
    public func outputBack() {
        outputDown = false
        guard case .paused(_, let reason) = state, reason.isForTheDevice else { return }
        if case .stream? = station, let station { begin(station) } else { update(generation: generation) }
    }

    /// Follows the engine's device events: lost (or not there at start) → `outputLost`, back → `outputBack`.
    public func deviceChanged(_ event: LiveEngine.DeviceEvent) {
        switch event {
        case .opened: outputBack()
        case .lost: outputLost(.deviceLost)
        case .waiting: outputLost(.noDevice)
        case .closedIdle: break // closed on purpose after a silence: nothing is lost
        case .attemptFailed: break // still away: said in the log only
        }
    }

    /// Resumes after an interruption at the live position (a fresh schedule); a no-op unless armed.
    public func resumeAfterInterruption() {
        guard resumeArmed, let station else { return }
        resumeArmed = false
        begin(station)
    }

    public var currentStation: String? { station?.name }

    // MARK: the station loop

    func begin(_ station: Station) {
        halt()
        self.station = station
        // The server's clock corrects the server's schedules only: a folder's spins are placed on this
        // machine's clock, and a wrong `Date` from the API must not silence them.
        if case .schedule(let source, _) = station { clock.applies = source.followsServerTime } else { clock.applies = false }
        generation += 1
        let current = generation
        publish(.loading(0))
        switch station {
        case .schedule(let source, let shift):
            follower = ScheduleFollower(lookahead: lookahead, refreshInterval: refreshInterval, downloadsAtOnce: downloadsAtOnce,
                                        localFile: { source.localFile(for: $0) })
            loop = Task { await self.run(source, shift: shift, generation: current) }
        case .stream(let stream):
            streamInfo = StreamInfo(url: stream.url)
            loop = Task { await self.runStream(stream, generation: current) }
        }
    }

    /// Ends the current generation: cancels its loop and downloads and clears the program (the engine
    /// fades each voice out over 20 ms; the PCM keeps running on silence).
    func halt() {
        generation += 1
        loop?.cancel()
        loop = nil
        engine.setProgram([])
        engine.setStream(nil)
        streamInfo = nil
        networkForgotten()
        follower = ScheduleFollower()
        let downloader = self.downloader
        Task { await downloader.cancel() }
    }

    /// Sleeps `seconds` unless `wake` comes first (or the calling task is cancelled).
    func sleepUnlessWoken(for seconds: Double) async {
        let sleep = Task { _ = try? await Task.sleep(for: .seconds(seconds)) }
        loopSleep = sleep
        await withTaskCancellationHandler { await sleep.value } onCancel: { sleep.cancel() }
    }

    /// Something the current loop waits for happened (the wall clock was set, a stream changed): it looks now.
    func wake() { loopSleep?.cancel() }

    /// `wake`, for another thread to call.
    nonisolated var waker: @Sendable () -> Void {
        { [weak self] in
            guard let self else { return }
            Task { await self.wake() }
        }
    }

    // MARK: publishing

    func publish(_ new: PlayerState) {
        state = new
        continuation.yield(.state(new))
        reportListening(new)
    }

    func notice(_ text: String) { continuation.yield(.notice(text)) }
}
