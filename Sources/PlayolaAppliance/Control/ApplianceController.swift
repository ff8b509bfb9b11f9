import FoundationEssentials
import PlayolaEngine
import PlayolaConfig

/// The appliance's one point of control: the configured stations, which one plays, the volume, and what
/// survives a restart. The control socket, signals and buttons all come here; it turns them into
/// `StationPlayer` commands and keeps the state file.
package actor ApplianceController {
    private(set) var config: ApplianceConfig
    /// Where the configuration came from, and the INI's first error while it has one.
    private(set) var configStatus: ConfigStatus
    package nonisolated let player: StationPlayer
    let engine: LiveEngine
    let cache: AudioCache
    let api: PlayolaAPI
    let device: String
    private var store: StateStore
    private var saved: ApplianceState?
    private var stationIndex = 0
    private var stopped = false
    private(set) var volume: Int
    /// Bass and treble in dB: the INI's at start and at each reload, `playola bass`/`treble` between.
    private(set) var tone: (bass: Double, treble: Double)
    private(set) var lastError: String?
    private(set) var lastErrorAt: Date?
    private let started = monotonicSeconds()
    /// Poked at each change the controller makes (the station, the volume); the player's events and the
    /// device poke it too (`RunCommand`).
    package nonisolated let changes: ChangeFeed
    /// The id the Playola API knows the box by (`DeviceIdentity`), the fleet's too; nil where none was loaded.
    let deviceID: String?
    /// The fleet's link, written by the fleet's thread (`[fleet]`); nil inside while there is no fleet.
    package nonisolated let fleet = Reported<FleetStatus>()
    /// Why the buttons are not there yet while `Buttons` waits for their GPIO chip; nil when they work or none is set.
    package nonisolated let buttonsWaiting = Reported<String>()

    package init(
        config: ApplianceConfig, configStatus: ConfigStatus, player: StationPlayer, engine: LiveEngine, cache: AudioCache,
        api: PlayolaAPI, device: String, deviceID: String? = nil, changes: ChangeFeed = ChangeFeed()
    ) {
        self.changes = changes
        self.deviceID = deviceID
        self.config = config
        self.configStatus = configStatus
        self.player = player
        self.engine = engine
        self.cache = cache
        self.api = api
        self.device = device
        store = StateStore(directory: config.service.stateDir)
        volume = config.player.volume
        tone = (config.player.bass, config.player.treble)
    }

    /// Boot-to-play: the last station and its playing/stopped state, else the configured default.
    package func boot() async {
        saved = store.load()
        if let saved, let name = saved.station, let index = config.stations.firstIndex(where: { $0.name == name }) {
            stationIndex = index
            volume = saved.volume ?? volume
            stopped = !saved.playing
        } else if let first = config.firstBootStation, let index = config.stations.firstIndex(of: first) {
            stationIndex = index
        }
        await player.setVolume(Volume.gain(percent: volume))
        await player.setTone(bass: tone.bass, treble: tone.treble)
        if !stopped { await startCurrent(ago: nil) }
        persist()
    }

    var currentStation: StationConfig? { config.stations.indices.contains(stationIndex) ? config.stations[stationIndex] : nil }

    // MARK: commands

    func play(_ name: String?, ago: Double?) async throws(ControlError) {
        var index = stationIndex
        if let name {
            guard let named = config.stations.firstIndex(where: { $0.name == name }) else {
                throw .unknownStation(name, known: config.stations.map(\.name))
            }
            index = named
        }
        // Refused before anything changes: only a Playola station has a schedule to go back in.
        if ago != nil, config.stations.indices.contains(index) {
            let station = config.stations[index]
            switch station.kind {
            case .playola: break
            case .stream: throw .agoNeedsPlayola(station: station.name, kind: "an internet stream")
            case .local: throw .agoNeedsPlayola(station: station.name, kind: "a local folder")
            }
        }
        stationIndex = index
        stopped = false
        await startCurrent(ago: ago)
        persist()
    }

    func next() async { await step(+1) }
    func previous() async { await step(-1) }

    private func step(_ delta: Int) async {
        guard !config.stations.isEmpty else { return }
        stationIndex = (stationIndex + delta + config.stations.count) % config.stations.count
        stopped = false
        await startCurrent(ago: nil)
        persist()
    }

    func stop() async {
        stopped = true
        await player.stop()
        persist()
    }

    /// The stop button: stop when playing, play when stopped, as the player finds itself.
    func toggleStop() async {
        switch await player.toggleStop(orPlay: currentRequest(ago: nil)) {
        case .stopped: stopped = true
        case .played: stopped = false
        case .nothing: return
        }
        persist()
    }

    func pause() async { await player.pauseForInterruption(.interruption) }
    func resume() async { await player.resumeAfterInterruption() }

    /// The interrupt button: pause, and the next press resumes at the live position.
    func toggleInterrupt() async { await player.toggleInterruption() }

    func setVolume(_ percent: Int) async {
        volume = max(0, min(100, percent))
        await player.setVolume(Volume.gain(percent: volume))
        persist()
    }

    func setTone(bass: Double? = nil, treble: Double? = nil) async {
        tone = (bass ?? tone.bass, treble ?? tone.treble)
        await player.setTone(bass: tone.bass, treble: tone.treble)
    }

    package func noteError(_ message: String, at date: Date = Date()) {
        lastError = message
        lastErrorAt = date
    }

    /// A button (or the encoder in station mode).
    package func handle(_ action: ButtonAction) async {
        switch action {
        case .nextStation: await next()
        case .previousStation: await previous()
        case .stop: await toggleStop()
        case .interrupt: await toggleInterrupt()
        case .volumeUp: await changeVolume(by: 5)
        case .volumeDown: await changeVolume(by: -5)
        case .station(let name): try? await play(name, ago: nil)
        case .shutdown:
            // A long press: power the board off cleanly (systemd stops us first, so state is saved).
            await stop()
            _ = ShutdownRequest.powerOff()
        }
    }

    /// Relative volume inside the actor, so quick encoder turns never lose a step.
    package func changeVolume(by points: Int) async { await setVolume(volume + points) }

    func audioDeviceChanged() { engine.wakeProbe() }

    /// The configured stations in file order, and the current one.
    package func stationList() -> StationList {
        StationList(stations: config.stations.map { .init(name: $0.name, type: $0.kind.type) }, current: currentStation?.name)
    }

    /// SIGHUP: a new config applies without interrupting playback when the playing station is unchanged.
    package func reload(_ new: ApplianceConfig, status: ConfigStatus) async {
        configStatus = status
        let playing = currentStation
        let old = config
        config = new
        if let playing, let index = new.stations.firstIndex(where: { $0.name == playing.name }) {
            stationIndex = index
            if new.stations[index] != playing, !stopped { await startCurrent(ago: nil) }
        } else {
            stationIndex = new.firstBootStation.flatMap { new.stations.firstIndex(of: $0) } ?? 0
            if !stopped { await startCurrent(ago: nil) }
        }
        // A volume edited in the file wins over the one last set by a client.
        if new.player.volume != old.player.volume { await setVolume(new.player.volume) }
        if (new.player.bass, new.player.treble) != (old.player.bass, old.player.treble) {
            await setTone(bass: new.player.bass, treble: new.player.treble)
        }
    }

    /// SIGHUP with an INI that has errors: the configuration stays; status says why.
    package func noteConfig(_ status: ConfigStatus) { configStatus = status }

    /// SIGTERM: stop cleanly (the listening session ends with the playing state).
    package func shutdown() async {
        await player.stop()
    }

    private func startCurrent(ago: Double?) async {
        guard let request = currentRequest(ago: ago) else { return }
        await player.play(request)
    }

    /// What playing the current station asks of the player; `ago`: its schedule as it aired that long ago.
    private func currentRequest(ago: Double?) -> StationPlayer.PlayRequest? {
        guard let station = currentStation else { return nil }
        switch station.kind {
        case .playola(let id, let timeshift):
            let shift = ago.map { -$0 } ?? timeshift
            return .schedule(PlayolaStationSource(api: api, stationID: id), at: shift.map { Date().addingTimeInterval($0) })
        case .local(let path):
            return .schedule(LocalFolderSource(stationID: station.name, path: path), at: nil)
        case .stream(let url, let headers):
            return .stream(StreamStation(name: station.name, url: url, headers: headers))
        }
    }

    /// Every command that changes what is kept ends here, so it is also where the change is said.
    private func persist() {
        changes.poke()
        let state = ApplianceState(station: currentStation?.name, playing: !stopped, volume: volume)
        if store.save(state, previous: saved) { saved = state }
    }

    // MARK: status

    package func status() async -> StatusReport {
        let state = await player.state
        let upcoming = await player.upcomingSpins(limit: StatusReport.upcomingLimit)
        let usage = cache.usage
        let output = engine.outputFormat
        var report = StatusReport(
            state: StatusReport.State(state), station: currentStation?.name, device: device, deviceAvailable: engine.hasDevice, volume: volume,
            uptime: Int(monotonicSeconds() - started), lastError: lastError, config: configStatus,
            cache: .init(bytes: usage.storedBytes + usage.reservedBytes, budget: cache.budgetBytes, files: usage.files))
        report.stationType = currentStation?.kind.type
        report.deviceId = deviceID
        report.version = PlayolaVersion.string
        report.slot = BootSlot.current
        report.fleet = fleet.current
        report.buttons = buttonsWaiting.current.map { "waiting: " + $0 }
        (report.bass, report.treble) = tone
        report.lastErrorAt = lastErrorAt.map(PlayolaDate.format)
        report.deviceRate = output?.rate
        report.deviceFormat = output?.format?.rawValue
        report.network = StatusReport.NetworkInfo(await player.network)
        if case .playing(let playing) = state { report.spin = .init(playing, now: Date()) }
        if case .paused(let playing?, let reason) = state {
            report.spin = .init(playing, now: Date())
            report.reason = reason
        }
        if case .error(let message) = state { report.lastError = message }
        if case .loading(let progress) = state { report.progress = progress }
        report.stream = await player.streamInfo.map(StatusReport.StreamStatus.init)
        if let hold = engine.streamHold {
            report.stream?.bufferSeconds = (hold.bufferSeconds * 100).rounded() / 100
            report.stream?.clockPPM = hold.correctionPPM.map { ($0 * 10).rounded() / 10 }
        }
        report.next = upcoming.first.map { .init(.spin($0), now: Date()) }
        if !upcoming.isEmpty { report.upcoming = upcoming.map { .init(.spin($0), now: Date()) } }
        let notes = UpdateStatus.notes(allowOlder: config.update.allowOlder)
        let said = [UpdateStatus.current()].compactMap { $0 } + notes
        report.update = said.isEmpty ? nil : said.joined(separator: "; ")
        return report
    }
}

package enum ControlError: Error, CustomStringConvertible {
    case unknownStation(String, known: [String])
    /// `play --ago` for a stream or a local folder (`kind`), which have no past schedule.
    case agoNeedsPlayola(station: String, kind: String)
    case usage(String)

    package var description: String {
        switch self {
        case .unknownStation(let name, let known): "no station '\(name)'; stations are: \(known.joined(separator: ", "))"
        case .agoNeedsPlayola(let station, let kind): "--ago needs a Playola station: '\(station)' is \(kind)"
        case .usage(let text): text
        }
    }
}

/// What `playola status` prints.
package struct StatusReport: Codable, Sendable {
    package struct SpinInfo: Codable, Sendable {
        package var title: String
        package var artist: String
        package var airtime: String
        /// Seconds into the file.
        package var position: Double
        /// Seconds the file plays; nil for a stream's title (added for `playola status`'s position/length).
        package var length: Double?
        /// A spin's own id and its audio file (a URL, `file://` for a local folder's); nil for a stream's title
        /// (added for MPD's song ids and `file`).
        package var id: String?
        package var file: String?

        init(_ playing: NowPlaying, now: Date) {
            let said = playing.announcement
            title = said.title
            artist = said.artist
            airtime = PlayolaDate.format(said.since)
            position = (now.timeIntervalSince(said.since) * 10).rounded() / 10
            length = playing.length
            if case .spin(let spin) = playing {
                id = spin.id
                file = spin.audioBlock.downloadURL
            }
        }
    }

    /// An internet radio station: what its server says.
    package struct StreamStatus: Codable, Sendable {
        package var url: String
        var name: String?
        var genre: String?
        package var bitrate: Int?
        var format: String?
        var title: String?
        /// Why the last connection ended, while reconnecting.
        var problem: String?
        /// While it sounds: seconds buffered (smoothed), and how many ppm faster (+) or slower (−) than it
        /// arrives it is played to hold that level (once settled, after a minute): its server's clock against the DAC's.
        var bufferSeconds: Double?
        var clockPPM: Double?

        init(_ info: StreamInfo) {
            url = info.url
            name = info.name
            genre = info.genre
            bitrate = info.bitrate
            format = info.format?.rawValue
            title = info.title
            problem = info.problem
        }
    }

    struct CacheInfo: Codable, Sendable {
        var bytes: Int64
        var budget: Int64
        var files: Int
    }

    /// The station's server and the network (`StationPlayer.network`); nil while there is nothing to say.
    package struct NetworkInfo: Codable, Sendable {
        /// false while the station's server cannot be reached (or gives no usable answer); absent for a
        /// station without a server (a local folder) or none.
        var reachable: Bool?
        package var lastError: String?
        /// When `lastError` happened (ISO 8601, UTC).
        var lastErrorAt: String?

        init?(_ network: NetworkStatus) {
            guard network.reachable != nil || network.lastError != nil else { return nil }
            reachable = network.reachable
            lastError = network.lastError
            lastErrorAt = network.lastErrorAt.map(PlayolaDate.format)
        }
    }

    /// `PlayerState` without what it carries (that is in `spin`, `reason`, `progress`, `lastError`).
    package enum State: String, Codable, Sendable {
        case idle, loading, playing, paused, error

        init(_ state: PlayerState) {
            switch state {
            case .idle: self = .idle
            case .loading: self = .loading
            case .playing: self = .playing
            case .paused: self = .paused
            case .error: self = .error
            }
        }
    }

    /// The control protocol's outcome field, which every answer carries.
    var ok = true
    package var state: State
    package var station: String?
    /// The station's INI `type`: `playola`, `local` or `stream`.
    var stationType: String?
    /// Tone controls in dB (0: flat).
    var bass: Double?
    var treble: Double?
    package var device: String
    package var deviceAvailable: Bool
    package var volume: Int
    var uptime: Int
    package var lastError: String?
    /// When `lastError` happened (ISO 8601, UTC).
    var lastErrorAt: String?
    /// What the open device negotiated: its rate (Hz) and sample format (`s16`, `s24`, `s32`, `float32`).
    package var deviceRate: Int?
    package var deviceFormat: String?
    package var network: NetworkInfo?
    package var config: ConfigStatus
    var cache: CacheInfo
    package var spin: SpinInfo?
    var next: SpinInfo?
    package var reason: PauseReason?
    var progress: Double?
    package var stream: StreamStatus?
    /// The firmware update's last word (`UpdateStatus`): installing, running from a slot, rolled back.
    package var update: String?
    /// The spins after the current one (`next` is the first), at most `upcomingLimit`; nil when none is known.
    package var upcoming: [SpinInfo]?
    /// The box's id (`DeviceIdentity`): the Playola API's, and the fleet's topics'.
    package var deviceId: String?
    /// The playola version running, and the image's A/B slot where there is one (`BootSlot`).
    package var version: String?
    package var slot: String?
    /// The fleet's broker link, with `[fleet]` only.
    package var fleet: FleetStatus?
    /// `waiting: cannot open chip …` while the GPIO lines cannot be had yet; absent when they work.
    package var buttons: String?
    /// In a `subscribe` stream's lines only: what changed (`StatusAspect`'s names).
    var changed: [String]?

    /// Enough for a phone's queue view; the schedule's whole lookahead can be a hundred short spins.
    static let upcomingLimit = 10
}
