import FoundationEssentials
import Glibc
import PlayolaEngine
import Synchronization
import PlayolaGPIO
import PlayolaRemote
import PlayolaFleet
import PlayolaControl
import PlayolaConfig
import PlayolaApplianceSupport

/// `playola run`: the service. Reads the config, opens the audio device, restores the last station and
/// plays; listens to the control socket and to signals; tells systemd when it is ready and feeds the
/// watchdog only while audio actually advances.
enum RunCommand {
    static let help = """
        usage: playola run [--config FILE] [--last-good FILE] [--output FILE.wav | --fallback FILE.wav] [--for SECONDS]

        The Playola service. --config: the INI to read; default \(ConfigLocation.searchDescription),
        the first that exists. An INI that passes the checks is kept as the last good configuration
        (--last-good, default \(ConfigKeeper.defaultLastGood)); one with errors is reported (FILE:LINE, in the
        log and in `playola status`) and the service runs on the last good one.
        --output plays into a WAV file at real-time pace instead of the configured ALSA device; --fallback
        does so only when the device cannot be opened. --for stops cleanly after that many seconds (demos
        and tests). SIGTERM stops cleanly; SIGHUP re-reads the config.
        Exit status \(startFailure) when it cannot start (no usable configuration, or a fault at start-up):
        the systemd unit does not restart on it, since the same fault would recur at every restart.
        """

    /// EX_CONFIG: the unit's RestartPreventExitStatus.
    static let startFailure: Int32 = 78

    /// `--for`: up to a year.
    static let maximumRunFor = 365 * 86_400.0

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, valued: ["config", "last-good", "output", "fallback", "for"])
        if arguments.flags.contains("help") {
            Console.out(help)
            return 0
        }
        let runFor = try arguments.seconds("for", maximum: maximumRunFor)
        var keeper = ConfigKeeper(explicitPath: arguments.options["config"], lastGoodPath: arguments.options["last-good"])
        guard let start = keeper.readAtStart() else { return startFailure }
        do {
            return try await run(arguments, config: start.config, configStatus: start.status, keeper: keeper, runFor: runFor)
        } catch {
            log(.error, "not starting: \(error)")
            return startFailure
        }
    }

    static func run(
        _ arguments: Arguments, config: ApplianceConfig, configStatus: ConfigStatus, keeper: ConfigKeeper, runFor: Double?
    ) async throws -> Int32 {
        let signals = SignalPipe.install([SIGTERM, SIGINT, SIGHUP])
        log.threshold.store(logLevel(config.log.level).rawValue, ordering: .relaxed)
        mkdir(config.service.stateDir, 0o755)

        let notifier = SystemdNotifier()
        let output = try Output(arguments, config: config)
        let events = DeviceEvents(notifier: notifier, device: output.name)
        let playola = config.playola
        let changes = ChangeFeed()
        // Loaded once: the listening sessions report it, and the fleet is known by it (its client id, its topics).
        let deviceID = DeviceIdentity.load(directory: config.service.stateDir)
        let stack = PlayerStack(
            api: playola.api, cache: try AudioCache(directory: config.cache.dir, budgetBytes: config.cache.size),
            output: .device(rate: output.mixRate, open: output.open, idleClose: config.player.idleClose),
            clockHold: config.player.clockHold,
            downloader: { AudioDownloader(http: $0, cache: $1, onProblem: { log(.warning, $0, key: "download") }) },
            sessions: { api in ListeningSessionReporter(
                api: api, deviceID: deviceID, token: { playola.token() },
                onReport: { report in if report.outcome != .ok { log(.warning, "listening session \(report.kind.rawValue): \(report.outcome)", key: "session") } }) },
            report: { event in log(event.kind == .error ? .warning : .info, "\(event)") },
            onDevice: { event in
                events.handle(event)
                changes.poke()
            })
        let (engine, player) = (stack.engine, stack.player)
        let controller = ApplianceController(
            config: config, configStatus: configStatus, player: player, engine: engine, cache: stack.cache, api: stack.api, device: output.name,
            deviceID: deviceID, changes: changes)
        let hooks = try HookRunner(settings: config.hooks)
        changes.listen { hooks.changed($0) }
        Task { await changes.run { await controller.status() } }
        engine.start()
        let buttons = Buttons(controller: controller)
        Task { await follow(player, controller: controller, notifier: notifier, engine: engine, buttons: buttons) }
        await controller.boot()
        try ControlServer.start(path: config.service.socket, controller: controller)
        buttons.start(config)
        let remote = RemoteServer(controller: controller)
        remote.apply(config.remote)
        let fleet = FleetService(controller: controller, deviceID: deviceID)
        fleet.apply(config.fleet, stations: config.stations.map(\.name))
        log(.info, "playola \(PlayolaVersion.string): output \(output.name); control socket \(config.service.socket)")
        startWatchdog(engine: engine, player: player, notifier: notifier)
        ReportWriter.start(controller: controller)
        if let seconds = runFor {
            startThread(named: "playola-timer") {
                // usleep takes at most UInt32 microseconds (71 minutes): sleep in whole-second steps.
                let end = monotonicSeconds() + seconds
                var left = seconds
                while left > 0 {
                    usleep(UInt32(min(left, 1) * 1_000_000))
                    left = end - monotonicSeconds()
                }
                kill(getpid(), SIGTERM)
            }
        }
        return await waitForSignals(signals, controller: controller, keeper: keeper, engine: engine,
                                    sessions: stack.sessions, notifier: notifier, buttons: buttons, hooks: hooks, remote: remote,
                                    fleet: fleet)
    }

    /// Player events → log lines, the last error, and systemd's STATUS.
    static func follow(
        _ player: StationPlayer, controller: ApplianceController, notifier: SystemdNotifier, engine: LiveEngine,
        buttons: Buttons
    ) async {
        var readySent = false
        for await event in player.events {
            controller.changes.poke()
            switch event {
            case .state(let state):
                buttons.show(LEDState(state, hasDevice: engine.hasDevice))
                switch state {
                case .playing(let playing):
                    let said = playing.announcement
                    // Per station, as every repeated line is: a stream that changes its title at every block
                    // says so a few times a minute, not at every change.
                    log(.info, "now playing: \"\(said.title)\"" + (said.artist.isEmpty ? "" : " by \(said.artist)"), key: "now-playing: \(said.station)")
                    _ = readySent ? notifier.status("playing \(said.title)") : notifier.ready(status: "playing \(said.title)")
                    readySent = true
                case .error(let message):
                    log(.error, message, key: "player-error")
                    await controller.noteError(message)
                    _ = notifier.status("error: \(message)")
                case .idle, .paused:
                    log(.info, "state: \(state.name)")
                    _ = readySent ? notifier.status(state.name) : notifier.ready(status: state.name)
                    readySent = true
                case .loading:
                    break
                }
            case .network:
                break // said by the state and the notices; the poke above pushes it to subscribers
            case .notice(let text):
                log(.notice, text, key: "notice")
            }
        }
    }

    /// WATCHDOG=1 only while frames advance and the decode thread makes progress (or the service is
    /// deliberately idle): a stuck output or a wedged decode stops feeding it, and systemd restarts the service.
    static func startWatchdog(engine: LiveEngine, player: StationPlayer, notifier: SystemdNotifier) {
        guard let interval = notifier.watchdogInterval else { return }
        startThread(named: "playola-watchdog") {
            var gate = WatchdogGate()
            while true {
                // A quarter of the interval (at most a second, which also keeps a huge WATCHDOG_USEC inside
                // usleep's UInt32), so one withheld feed (a brief stall) still leaves time before the deadline.
                usleep(UInt32(min(interval / 4, 1) * 1_000_000))
                let idle = blocking { () -> Bool in
                    if case .playing = await player.state { return false }
                    return true
                }
                if gate.shouldFeed(framesPlayed: engine.framesPlayed, decodeProgress: engine.decodeProgress, deliberatelyIdle: idle,
                                   now: monotonicSeconds()) {
                    _ = notifier.watchdog()
                }
            }
        }
    }

    static func waitForSignals(
        _ signals: Int32, controller: ApplianceController, keeper: ConfigKeeper, engine: LiveEngine,
        sessions: ListeningSessionReporter?, notifier: SystemdNotifier, buttons: Buttons, hooks: HookRunner,
        remote: RemoteServer, fleet: FleetService
    ) async -> Int32 {
        var keeper = keeper
        while true {
            let caught: Int32 = await withCheckedContinuation { continuation in
                startThread(named: "playola-signals") { continuation.resume(returning: SignalPipe.wait(signals)) }
            }
            if caught == SIGHUP {
                _ = notifier.reloading()
                let (loaded, status) = keeper.reread()
                if let loaded {
                    await controller.reload(loaded, status: status)
                    buttons.start(loaded)
                    hooks.update(loaded.hooks)
                    remote.apply(loaded.remote)
                    fleet.apply(loaded.fleet, stations: loaded.stations.map(\.name))
                } else {
                    await controller.noteConfig(status)
                }
                _ = notifier.ready(status: status.error.map { "configuration kept: \($0)" } ?? "configuration reloaded")
                continue
            }
            _ = notifier.stopping()
            log(.info, "stopping")
            buttons.stop()
            hooks.stop()
            await controller.shutdown()
            await sessions?.flush()
            // After the player stopped, so the last status the broker keeps is the stopped one.
            fleet.stop(lastStatus: ControlReply.line(await controller.status()))
            usleep(60_000) // the fade-out and the last frames reach the device
            engine.shutdown()
            return 0
        }
    }

    static func logLevel(_ level: ApplianceConfig.LogLevel) -> Log.Level {
        switch level {
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        }
    }
}
