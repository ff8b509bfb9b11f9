import PlayolaCache
import PlayolaLive
import PlayolaModel
import PlayolaNetwork
import PlayolaOutput
import Synchronization

/// The program assembled, in one place for `playola run` and the tests: one HTTP client for the API and
/// the downloads, the live engine on its output, and the station player, which follows the engine's
/// device events (lost, back) from the moment the engine starts.
public struct PlayerStack: Sendable {
    /// Where the engine plays.
    public enum Output {
        /// A sink already open that never goes away (tests, a WAV file).
        case sink(any AudioSink)
        /// A device opened by `open`, probed for again every `probeInterval` s while away, closed after
        /// `idleClose` s of silence with nothing to play (nil: never).
        case device(rate: Int, open: @Sendable () throws(AudioSinkError) -> any AudioSink, probeInterval: Double = 2, idleClose: Double? = nil)
    }

    public let http: HTTPClient
    public let api: PlayolaAPI
    public let cache: AudioCache
    public let downloader: AudioDownloader
    public let clock: ServerCorrectedClock
    public let engine: LiveEngine
    public let player: StationPlayer
    public let sessions: ListeningSessionReporter?

    /// - Parameters:
    ///   - retryDelays: the API's retries of a schedule fetch (nil: its own).
    ///   - downloader: makes the downloader from the shared client and the cache (its backoff, its log).
    ///   - sessions: makes the listening-session reporter on the API (nil: none).
    ///   - report: what played when, from the engine's decode thread.
    ///   - onDevice: the engine's device events, before the player hears of them.
    ///   - clockHold: how a stream is held against the DAC's clock (`LiveEngine.clockHold`).
    public init(
        api baseURL: String, cache: AudioCache, output: Output, retryDelays: [Double]? = nil, clockHold: ClockHold = .stuff,
        downloader: (HTTPClient, AudioCache) -> AudioDownloader = { AudioDownloader(http: $0, cache: $1) },
        sessions: ((PlayolaAPI) -> ListeningSessionReporter)? = nil,
        report: @escaping @Sendable (PlayEvent) -> Void = { _ in },
        onDevice: @escaping @Sendable (LiveEngine.DeviceEvent) -> Void = { _ in }
    ) {
        http = HTTPClient()
        var api = PlayolaAPI(baseURL: baseURL, http: http)
        if let retryDelays { api.retryDelays = retryDelays }
        self.api = api
        self.cache = cache
        self.downloader = downloader(http, cache)
        clock = ServerCorrectedClock()
        // The engine is made before the player that follows its device events: the link is set just after.
        let follower = Mutex<StationPlayer?>(nil)
        let deviceChanged: @Sendable (LiveEngine.DeviceEvent) -> Void = { event in
            onDevice(event)
            guard let player = follower.withLock({ $0 }) else { return }
            Task { await player.deviceChanged(event) }
        }
        let device: (rate: Int, open: @Sendable () throws(AudioSinkError) -> any AudioSink, probeInterval: Double, idleClose: Double?)
        switch output {
        case .sink(let sink):
            let handoff = SinkHandoff(sink)
            device = (sink.sampleRate, { handoff.sink }, 2, nil)
        case .device(let rate, let open, let probeInterval, let idleClose):
            device = (rate, open, probeInterval, idleClose)
        }
        engine = LiveEngine(mixRate: device.rate, openSink: device.open, clock: clock, probeInterval: device.probeInterval,
                            idleClose: device.idleClose, clockHold: clockHold, report: report, onDevice: deviceChanged)
        self.sessions = sessions?(api)
        player = StationPlayer(api: api, downloader: self.downloader, engine: engine, clock: clock, reporter: self.sessions)
        follower.withLock { [player] in $0 = player }
    }

    /// Stops the player (its loop would otherwise tick on) and the engine's threads.
    public func shutdown() async {
        await player.stop()
        engine.shutdown()
    }
}
