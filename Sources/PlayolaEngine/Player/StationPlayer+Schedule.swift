import FoundationEssentials
import PlayolaLive
import PlayolaModel
import PlayolaNetwork
import PlayolaSchedule
import PlayolaSupport

/// Follows a schedule: fetches it (retrying, refreshing every 20 s and at each spin start), carries out what
/// its `ScheduleFollower` says at each tick (the next 10 minutes downloaded into the cache and pinned, the
/// live engine's program in step with the wall clock, the state), and reports the listening session as the
/// state changes.
extension StationPlayer {
    /// What the schedule says plays next after the current spin (for status).
    public var nextSpin: Spin? { follower.nextSpin(at: clock.now()) }

    /// The spins the schedule says come after the current one, in airtime order, at most `limit` (status's
    /// queue, which MPD clients show as the playlist).
    public func upcomingSpins(limit: Int) -> [Spin] { follower.upcomingSpins(at: clock.now(), limit: limit) }

    func run(_ source: any ScheduleSource, shift: Double, generation: Int) async {
        var failures = 0
        // The first fetch: retried; an empty or unreachable schedule is `error`, retried with backoff.
        while self.generation == generation {
            do {
                guard try await fetchAndAdopt(source, retrying: true, shift: shift, generation: generation) else { return }
                break
            } catch {
                guard self.generation == generation else { return }
                failures += 1
                if error.isNetworkUnreachable {
                    // No way to the API yet (a board just booted: no link, no address, no name server). Still
                    // loading, and asked again every 5 s, so the station plays as soon as the network is up.
                    if failures == 1 { notice("waiting for the network: \(error)") }
                    publish(.loading(0))
                    try? await Task.sleep(for: .seconds(5))
                } else {
                    publish(.error("\(error)"))
                    try? await Task.sleep(for: .seconds(Backoff(first: 5, cap: 60).delay(attempt: failures)))
                }
            }
        }
        // The fetch just made counts as the refresh for the spin playing now.
        follower.fetched(at: monotonicSeconds(), now: clock.now())
        while self.generation == generation, !Task.isCancelled {
            update(generation: generation)
            if follower.refreshDue(now: clock.now(), at: monotonicSeconds()) {
                follower.fetched(at: monotonicSeconds())
                do {
                    guard try await fetchAndAdopt(source, retrying: false, shift: shift, generation: generation) else { return }
                } catch {
                    notice("schedule refresh failed, playing the known schedule: \(error)")
                }
            }
            // While the device is away nothing is placed: a look a second is enough. Otherwise it sleeps until
            // the program changes (each sleep wakes the Swift pool and its timer thread, ~3 thread wake-ups:
            // bench/PROFILE.md), woken early if the wall clock is set; where that cannot be watched, it
            // looks every second.
            let limit = clockSetWatch != nil ? 600.0 : 1
            let wait = outputDown ? 1 : follower.secondsUntilTheProgramChanges(now: clock.now(), at: monotonicSeconds(), atMost: limit)
            await sleepUnlessWoken(for: wait)
        }
    }

    /// One fetch of the schedule, adopted; false when the station changed meanwhile. Only a server's schedule
    /// says anything about the network (a folder's has none), and a network failure marks it unreachable.
    private func fetchAndAdopt(
        _ source: any ScheduleSource, retrying: Bool, shift: Double, generation: Int
    ) async throws(ScheduleSourceError) -> Bool {
        do {
            let fetch = try await source.fetchSchedule(retrying: retrying)
            guard self.generation == generation else { return false }
            if source.followsServerTime { networkReached() }
            adopt(fetch, shift: shift)
            return true
        } catch {
            if case .api(.network) = error, self.generation == generation { networkFailed("\(error)") }
            throw error
        }
    }

    /// Takes a fetched schedule, after what its server's date says of this machine's clock.
    private func adopt(_ fetch: ScheduleFetch, shift: Double) {
        if let serverDate = fetch.serverNow(), let correction = clock.observe(serverDate: serverDate) {
            notice(correction == 0
                   ? "system clock agrees with the server again"
                   : "system clock differs from the server's by \(Int(correction.rounded())) s: playing against the server's time")
        }
        for dropped in fetch.dropped { notice("\(dropped)") }
        follower.adopt(fetch.schedule.spins, shift: shift, now: clock.now())
    }

    /// One tick: what sounds within the lookahead gets pinned, downloaded and handed to the engine.
    func update(generation: Int) {
        let program = follower.update(now: clock.now())
        downloader.cache.setPinned(program.pinned)
        for download in program.downloads {
            let downloader = self.downloader
            Task {
                let result = await downloader.file(for: download.url) { fraction in
                    Task { await self.downloadProgress(download.spinID, fraction, generation: generation) }
                }
                self.downloaded(download.spinID, result, generation: generation)
            }
        }
        engine.setProgram(program.entries)
        follow(program.audible)
    }

    /// State: loading until the audible spin's file is here; never back from playing to loading.
    private func follow(_ audible: ScheduleFollower.Audible) {
        guard follower.configurationProblem == nil else { return }
        if case .ready(let spin) = audible {
            // Ready to sound: playing, or paused for the device (a station started without one says so,
            // rather than loading until the device comes).
            let ready: PlayerState = outputDown ? .paused(.spin(spin), outputDownReason) : .playing(.spin(spin))
            if state != ready { publish(ready) }
        } else if case .playing(let playing) = state {
            if outputDown { publish(.paused(playing, outputDownReason)) }
        } else if case .paused = state, outputDown {
        } else if case .loading(let fraction) = audible, state != .loading(fraction) {
            publish(.loading(fraction))
        }
    }

    private func downloadProgress(_ id: String, _ fraction: Double, generation: Int) {
        guard self.generation == generation else { return }
        follower.downloadProgressed(id, fraction)
    }

    private func downloaded(_ id: String, _ result: Result<String, DownloadError>, generation: Int) {
        guard self.generation == generation else { return }
        switch follower.downloaded(id, result) {
        case .quiet: break
        case .notice(let text): notice(text)
        case .configurationProblem(let problem): publish(.error(problem))
        }
        update(generation: generation)
    }

    /// The listening session follows the state: playing a Playola station reports it, anything else but
    /// `loading` ends it.
    func reportListening(_ new: PlayerState) {
        guard let reporter else { return }
        if case .loading = new { return }
        // A station that reports nothing (a folder, a stream) still ends the session of the Playola
        // station before it; the reporter ignores a repeated nil.
        let reports = station?.reportsListening ?? true
        let stationID: String? = if reports, case .playing(let playing) = new { playing.announcement.station } else { nil }
        // One chain, so the reporter sees the states in the order they happened.
        let previous = reporting
        reporting = Task { await previous?.value; await reporter.playing(stationID: stationID) }
    }
}
