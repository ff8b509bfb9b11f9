import FoundationEssentials
import PlayolaLive
import PlayolaModel
import PlayolaNetwork
import PlayolaSchedule
import PlayolaSupport

/// Follows a schedule: fetches it (retrying, refreshing every 20 s and at each spin start), downloads the
/// next 10 minutes into the cache (pinned), keeps the live engine's program in step with the wall clock,
/// and reports the listening session as the state changes.
extension StationPlayer {
    /// What the schedule says plays next after the current spin (for status).
    public var nextSpin: Spin? {
        let now = clock.now()
        return schedule.spins.first { $0.airtime > now }
    }

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
                    guard try await fetchAndAdopt(source, retrying: false, shift: shift, generation: generation) else { return }
                } catch {
                    notice("schedule refresh failed, playing the known schedule: \(error)")
                }
            }
            let refreshDue = lastRefresh + refreshInterval - monotonicSeconds()
            try? await Task.sleep(for: .seconds(secondsUntilTheProgramChanges(at: clock.now(), refreshDue: refreshDue)))
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

    /// How long the schedule can be left alone: until a spin comes within the lookahead, starts or ends, or
    /// the refresh is due; at most a second (a stepped system clock is seen within it). Downloads and device
    /// events update at once on their own. (A 250 ms tick woke the Swift pool four times a second, ~12
    /// thread wake-ups with the timer's: bench/PROFILE.md.) While the device is away nothing is placed.
    private func secondsUntilTheProgramChanges(at now: Date, refreshDue: Double) -> Double {
        guard !outputDown else { return 1 }
        var next = min(1, refreshDue)
        for spin in schedule.spins {
            let end = spin.airtime.addingTimeInterval(Double(spin.audioBlock.durationMS) / 1000)
            for change in [spin.airtime.addingTimeInterval(-lookahead), spin.airtime, end] {
                let seconds = change.timeIntervalSince(now)
                if seconds > 0, seconds < next { next = seconds }
            }
            if spin.airtime.timeIntervalSince(now) - lookahead > next { break } // the spins are in airtime order
        }
        return max(0.005, next)
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
        // What is known of spins that have left the schedule goes with them, or a station that plays for
        // months keeps every spin it ever played (a download still running finishes into `files` once more).
        let ids = Set(schedule.spins.map(\.id))
        files = files.filter { ids.contains($0.key) }
        progress = progress.filter { ids.contains($0.key) }
        failed.formIntersection(ids)
        requested.formIntersection(ids.union(downloading))
    }

    /// One tick: what sounds within the lookahead gets pinned, downloaded and handed to the engine.
    func update(generation: Int) {
        let now = clock.now()
        let window = schedule.spins.filter {
            $0.airtime.addingTimeInterval(Double($0.audioBlock.durationMS) / 1000) > now
                && $0.airtime.timeIntervalSince(now) < lookahead
        }
        let urls = Set(window.compactMap(\.audioBlock.downloadURL))
        downloader.cache.setPinned(urls)
        for spin in window where !requested.contains(spin.id) {
            guard let url = spin.audioBlock.downloadURL else { continue }
            // A local folder's own files are played where they are; every other URL goes to the
            // downloader, which fetches http and https only.
            if case .schedule(let source, _)? = station, let local = source.localFile(for: url) {
                requested.insert(spin.id)
                files[spin.id] = local
                continue
            }
            guard downloading.count < downloadsAtOnce else { continue }
            requested.insert(spin.id)
            downloading.insert(spin.id)
            let id = spin.id
            let downloader = self.downloader
            Task {
                let result = await downloader.file(for: url) { fraction in
                    Task { await self.downloadProgress(id, fraction, generation: generation) }
                }
                self.downloaded(id, result, generation: generation)
            }
        }
        engine.setProgram(window.filter { !failed.contains($0.id) }.map { ProgramEntry(spin: $0, file: files[$0.id]) })
        // State: loading until the audible spin's file is here; never back from playing to loading.
        guard configurationProblem == nil else { return }
        let audible = schedule.nowPlaying(at: now) ?? window.first
        if let audible, files[audible.id] != nil || failed.contains(audible.id) {
            // Ready to sound: playing, or paused for the device (a station started without one says so,
            // rather than loading until the device comes).
            let ready: PlayerState = outputDown ? .paused(.spin(audible), outputDownReason) : .playing(.spin(audible))
            if state != ready { publish(ready) }
        } else if case .playing(let playing) = state {
            if outputDown { publish(.paused(playing, outputDownReason)) }
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
        downloading.remove(id)
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
