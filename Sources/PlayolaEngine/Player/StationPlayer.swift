import FoundationEssentials
import PlayolaLive
import PlayolaModel
import PlayolaNetwork
import PlayolaSchedule
import PlayolaStreaming
import PlayolaSupport
import Synchronization

/// Plays a Playola station live: fetches its schedule (retrying, refreshing every 20 s and at each spin
/// start), downloads the next 10 minutes into the cache (pinned), and keeps the live engine's program in
/// step with the wall clock. It plays internet radio streams too (`StationPlayer+Stream`). The last
/// command wins: every command bumps a generation, and work of an older generation publishes nothing.
public actor StationPlayer {
    public private(set) var state: PlayerState = .idle
    public nonisolated let events: AsyncStream<PlayerEvent>
    private let continuation: AsyncStream<PlayerEvent>.Continuation

    let api: PlayolaAPI
    private let downloader: AudioDownloader
    let engine: LiveEngine
    private let clock: ServerCorrectedClock
    private let reporter: ListeningSessionReporter?
    public var lookahead: Double = 600
    public var refreshInterval: Double = 20
    public private(set) var volume: Float = 1

    /// The master gain (after the perceptual curve); ramps, so a step never clicks.
    public func setVolume(_ gain: Float) {
        volume = gain
        engine.setGain(gain)
    }

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
    private var resumeArmed = false
    /// The engine has no device: the state says `paused(outputDownReason)` whatever the schedule does.
    var outputDown = false
    var outputDownReason = PauseReason.deviceLost
    /// Whether the station's server answers, and the last network failure.
    public internal(set) var network = NetworkStatus() {
        didSet { unreachable.store(network.reachable == false, ordering: .releasing) }
    }
    /// `network.reachable == false`, readable from any thread without a hop to the actor (the network LED
    /// is read a few times a second on the GPIO thread).
    private nonisolated let unreachable = Atomic<Bool>(false)
    public nonisolated var cannotReachServer: Bool { unreachable.load(ordering: .acquiring) }
    private var reporting: Task<Void, Never>?

    // The current generation's knowledge.
    private var schedule = Schedule(spins: [])
    private var files: [String: String] = [:]
    private var failed: Set<String> = []
    private var requested: Set<String> = []
    private var progress: [String: Double] = [:]
    /// A problem no retry can mend (the cache budget): the state stays `error` for this generation.
    private var configurationProblem: String?

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
        let spin: Spin?
        switch state {
        case .playing(let playing): spin = playing
        case .loading: spin = nil
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
        publish(spin.map { .paused($0, reason) } ?? .idle)
    }

    /// The audio device went away (or was not there at start, `reason` `.noDevice`): `paused(spin, reason)`.
    /// The schedule clock and downloads go on; the engine re-places the program at the live position when
    /// the device is back.
    public func outputLost(_ reason: PauseReason = .deviceLost) {
        outputDown = true
        outputDownReason = reason
        guard case .stream? = station else {
            if case .playing(let spin) = state { publish(.paused(spin, reason)) }
            return
        }
        // A stream drops its connection and its buffer, which would be stale by the time the device is back.
        switch state {
        case .playing(let spin): halt(); publish(.paused(spin, reason))
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
        }
    }

    /// Resumes after an interruption at the live position (a fresh schedule); a no-op unless armed.
    public func resumeAfterInterruption() {
        guard resumeArmed, let station else { return }
        resumeArmed = false
        begin(station)
    }

    public var currentStation: String? { station?.name }

    /// What the schedule says plays next after the current spin (for status).
    public var nextSpin: Spin? {
        let now = clock.now()
        return schedule.spins.first { $0.airtime > now }
    }

    // MARK: the station loop

    private func begin(_ station: Station) {
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
            loop = Task { await self.run(source, shift: shift, generation: current) }
        case .stream(let stream):
            streamInfo = StreamInfo(url: stream.url)
            loop = Task { await self.runStream(stream, generation: current) }
        }
    }

    /// Ends the current generation: cancels its loop and downloads and clears the program (the engine
    /// fades each voice out over 20 ms; the PCM keeps running on silence).
    private func halt() {
        generation += 1
        loop?.cancel()
        loop = nil
        engine.setProgram([])
        engine.setStream(nil)
        streamInfo = nil
        networkForgotten()
        schedule = Schedule(spins: [])
        files = [:]
        failed = []
        requested = []
        progress = [:]
        configurationProblem = nil
        let downloader = self.downloader
        Task { await downloader.cancel() }
    }

    private func run(_ source: any ScheduleSource, shift: Double, generation: Int) async {
        var failures = 0
        // The first fetch: retried; an empty or unreachable schedule is `error`, retried with backoff.
        while self.generation == generation {
            do {
                let fetch = try await source.fetchSchedule(retrying: true)
                guard self.generation == generation else { return }
                // Only a server's schedule says anything about the network (a folder's has none).
                if source.followsServerTime { networkReached() }
                adopt(fetch, shift: shift)
                break
            } catch {
                guard self.generation == generation else { return }
                failures += 1
                if case .api(.network) = error { networkFailed("\(error)") }
                if error.isNetworkUnreachable {
                    // No way to the API yet (a board just booted: no link, no address, no name server). Still
                    // loading, and asked again every 5 s, so the station plays as soon as the network is up.
                    if failures == 1 { notice("waiting for the network: \(error)") }
                    publish(.loading(0))
                    try? await Task.sleep(for: .seconds(5))
                } else {
                    publish(.error("\(error)"))
                    try? await Task.sleep(for: .seconds(min(60, 5 * Double(1 << min(failures - 1, 4)))))
                }
            }
        }
        var lastRefresh = monotonicSeconds()
        // The fetch just made counts as the refresh for the spin playing now.
        var lastNowPlaying = schedule.nowPlaying(at: clock.now())?.id
        while self.generation == generation, !Task.isCancelled {
            update(generation: generation)
            let now = clock.now()
            let playing = schedule.nowPlaying(at: now)?.id
            let spinStarted = playing != nil && playing != lastNowPlaying
            lastNowPlaying = playing ?? lastNowPlaying
            if spinStarted || monotonicSeconds() - lastRefresh >= refreshInterval {
                lastRefresh = monotonicSeconds()
                do {
                    let fetch = try await source.fetchSchedule(retrying: false)
                    guard self.generation == generation else { return }
                    if source.followsServerTime { networkReached() }
                    adopt(fetch, shift: shift)
                } catch {
                    if case .api(.network) = error, self.generation == generation { networkFailed("\(error)") }
                    notice("schedule refresh failed, playing the known schedule: \(error)")
                }
            }
            // While the device is away there is nothing to place: tick slowly (the schedule clock and the
            // downloads go on regardless), so waiting costs no CPU to speak of.
            try? await Task.sleep(for: .milliseconds(outputDown ? 1000 : 250))
        }
    }

    /// Takes a fetched schedule: spins already known keep their place (only new ones are added, as the
    /// server locks spins in), airtimes shifted for time-shifted playback.
    private func adopt(_ fetch: ScheduleFetch, shift: Double) {
        if let serverDate = fetch.serverNow(), let correction = clock.observe(serverDate: serverDate) {
            notice(correction == 0
                   ? "system clock agrees with the server again"
                   : "system clock differs from the server's by \(Int(correction.rounded())) s: playing against the server's time")
        }
        for dropped in fetch.dropped { notice("\(dropped)") }
        let known = Dictionary(schedule.spins.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let incoming = fetch.schedule.spins.map { known[$0.id] ?? $0.withOffset(shift) }
        let kept = schedule.spins.filter { spin in !incoming.contains { $0.id == spin.id } && spin.airtime.addingTimeInterval(Double(spin.audioBlock.durationMS) / 1000) > clock.now() }
        schedule = Schedule(spins: incoming + kept)
    }

    /// One tick: what sounds within the lookahead gets pinned, downloaded and handed to the engine.
    private func update(generation: Int) {
        let now = clock.now()
        let window = schedule.spins.filter {
            $0.airtime.addingTimeInterval(Double($0.audioBlock.durationMS) / 1000) > now
                && $0.airtime.timeIntervalSince(now) < lookahead
        }
        let urls = Set(window.compactMap(\.audioBlock.downloadURL))
        downloader.cache.setPinned(urls)
        for spin in window where !requested.contains(spin.id) {
            guard let url = spin.audioBlock.downloadURL else { continue }
            requested.insert(spin.id)
            // A local folder's own files are played where they are; every other URL goes to the
            // downloader, which fetches http and https only.
            if case .schedule(let source, _)? = station, let local = source.localFile(for: url) {
                files[spin.id] = local
                continue
            }
            let id = spin.id
            let downloader = self.downloader
            Task {
                let result = await downloader.file(for: url) { fraction in
                    Task { await self.downloadProgress(id, fraction, generation: generation) }
                }
                await self.downloaded(id, result, generation: generation)
            }
        }
        engine.setProgram(window.filter { !failed.contains($0.id) }.map { ProgramEntry(spin: $0, file: files[$0.id]) })
        // State: loading until the audible spin's file is here; never back from playing to loading.
        guard configurationProblem == nil else { return }
        let audible = schedule.nowPlaying(at: now) ?? window.first
        if let audible, files[audible.id] != nil || failed.contains(audible.id) {
            // Ready to sound: playing, or paused for the device (a station started without one says so,
            // rather than loading until the device comes).
            let ready: PlayerState = outputDown ? .paused(audible, outputDownReason) : .playing(audible)
            if state != ready { publish(ready) }
        } else if case .playing(let spin) = state {
            if outputDown { publish(.paused(spin, outputDownReason)) }
        } else if case .paused = state, outputDown {
        } else if let audible {
            let fraction = progress[audible.id] ?? 0
            if state != .loading(fraction) { publish(.loading(fraction)) }
        }
    }

    private func downloadProgress(_ id: String, _ fraction: Double, generation: Int) {
        guard self.generation == generation else { return }
        progress[id] = fraction
    }

    private func downloaded(_ id: String, _ result: Result<String, DownloadError>, generation: Int) {
        guard self.generation == generation else { return }
        switch result {
        case .success(let path):
            files[id] = path
        case .failure(.cancelled):
            requested.remove(id)
        case .failure(.cache(_, let error)) where { if case .noSpace = error { true } else { false } }():
            // The budget cannot hold what must play next: a configuration error, said as the state.
            failed.insert(id)
            configurationProblem = "\(error)"
            publish(.error("\(error)"))
        case .failure(.backedOff):
            failed.insert(id) // named when it failed; once in the log is enough
        case .failure(let error):
            failed.insert(id)
            notice("spin \(id) will be silent: \(error)")
        }
        update(generation: generation)
    }

    // MARK: publishing

    func publish(_ new: PlayerState) {
        state = new
        continuation.yield(.state(new))
        if let reporter {
            if case .loading = new { return }
            // A station that reports nothing (a folder, a stream) still ends the session of the Playola
            // station before it; the reporter ignores a repeated nil.
            let reports = station?.reportsListening ?? true
            let stationID: String? = if reports, case .playing(let spin) = new { spin.stationID } else { nil }
            // One chain, so the reporter sees the states in the order they happened.
            let previous = reporting
            reporting = Task { await previous?.value; await reporter.playing(stationID: stationID) }
        }
    }

    func notice(_ text: String) { continuation.yield(.notice(text)) }
}
