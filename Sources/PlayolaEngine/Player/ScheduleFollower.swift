import FoundationEssentials
import PlayolaLive
import PlayolaModel
import PlayolaNetwork

/// One station's schedule followed against the wall clock: the spins known, their files and downloads, and
/// when the schedule is next fetched. `update(now:)` says what follows from them at `now` (the program for
/// the engine, the files to pin and fetch, whether what sounds can sound); the player carries it out. A
/// value with no clock of its own, so it is tested on a scripted one.
struct ScheduleFollower {
    /// Seconds ahead of its airtime that a spin is pinned, downloaded and handed to the engine.
    let lookahead: Double
    let refreshInterval: Double
    /// Downloads run at most this many at once, in airtime order.
    let downloadsAtOnce: Int
    /// The file on this machine a spin's URL names (a local folder's), nil for one to download.
    private let localFile: @Sendable (String) -> String?

    private(set) var schedule = Schedule(spins: [])
    private(set) var files: [String: String] = [:]
    private var failed: Set<String> = []
    private(set) var requested: Set<String> = []
    /// Requested and not yet done: at most `downloadsAtOnce`.
    private var downloading: Set<String> = []
    private var progress: [String: Double] = [:]
    /// A problem no retry can mend (the cache budget): the station stays in error.
    private(set) var configurationProblem: String?
    /// Monotonic seconds of the last fetch, and the spin heard then (a new one starting fetches again).
    private var lastRefresh = -Double.infinity
    private var lastNowPlaying: String?

    /// What the schedule says at one instant.
    struct Program: Equatable {
        /// The spins that sound within the lookahead (but those whose file failed), for the engine.
        var entries: [ProgramEntry]
        /// The download URLs of those spins, to keep in the cache.
        var pinned: Set<String>
        /// Downloads to start now.
        var downloads: [Download]
        /// The spin heard now, else the next to sound: whether it can sound.
        var audible: Audible
    }

    struct Download: Equatable {
        var spinID: String
        var url: String
    }

    enum Audible: Equatable {
        /// Nothing in the lookahead.
        case none
        /// Its file is here, or failed and its window is silence.
        case ready(Spin)
        /// Its file is on its way, this fraction of it downloaded.
        case loading(Double)
    }

    /// What came of a download, for the player to say.
    enum DownloadOutcome: Equatable {
        case quiet
        case notice(String)
        /// The station cannot play until its configuration changes.
        case configurationProblem(String)
    }

    init(lookahead: Double = 600, refreshInterval: Double = 20, downloadsAtOnce: Int = 2,
         localFile: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.lookahead = lookahead
        self.refreshInterval = refreshInterval
        self.downloadsAtOnce = downloadsAtOnce
        self.localFile = localFile
    }

    /// The spin after the one heard at `now`.
    func nextSpin(at now: Date) -> Spin? { schedule.spins.first { $0.airtime > now } }

    /// The spins after the one heard at `now`, at most `limit`.
    func upcomingSpins(at now: Date, limit: Int) -> [Spin] { Array(schedule.spins.lazy.filter { $0.airtime > now }.prefix(limit)) }

    /// The program at `now`; the downloads it returns count as started. Called at every tick of the player's
    /// loop, and at once when a download ends or the device is back.
    mutating func update(now: Date) -> Program {
        let window = schedule.spins.filter { $0.fileEnd > now && $0.airtime.timeIntervalSince(now) < lookahead }
        var downloads: [Download] = []
        for spin in window where !requested.contains(spin.id) {
            guard let url = spin.audioBlock.downloadURL else { continue }
            // A local folder's own files are played where they are; every other URL goes to the
            // downloader, which fetches http and https only.
            if let local = localFile(url) {
                requested.insert(spin.id)
                files[spin.id] = local
                continue
            }
            guard downloading.count < downloadsAtOnce else { continue }
            requested.insert(spin.id)
            downloading.insert(spin.id)
            downloads.append(Download(spinID: spin.id, url: url))
        }
        let entries = window.filter { !failed.contains($0.id) }.map { ProgramEntry(spin: $0, file: files[$0.id]) }
        let audible: Audible = switch schedule.nowPlaying(at: now) ?? window.first {
        case nil: .none
        case let spin? where files[spin.id] != nil || failed.contains(spin.id): .ready(spin)
        case let spin?: .loading(progress[spin.id] ?? 0)
        }
        return Program(entries: entries, pinned: Set(window.compactMap(\.audioBlock.downloadURL)), downloads: downloads,
                       audible: audible)
    }
}

/// What changes the follower's knowledge: a fetched schedule, a download's progress and end, and the
/// fetches' own timing.
extension ScheduleFollower {
    /// Takes a fetched schedule: spins already known keep their place (only new ones are added, as the
    /// server locks spins in), airtimes shifted for time-shifted playback; known spins that have left it
    /// stay until they have played out.
    mutating func adopt(_ spins: [Spin], shift: Double, now: Date) {
        let known = Dictionary(schedule.spins.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let incoming = spins.map { known[$0.id] ?? $0.withOffset(shift) }
        let kept = schedule.spins.filter { spin in !incoming.contains { $0.id == spin.id } && spin.fileEnd > now }
        schedule = Schedule(spins: incoming + kept)
        // What is known of spins that have left the schedule goes with them, or a station that plays for
        // months keeps every spin it ever played (a download still running finishes into `files` once more).
        let ids = Set(schedule.spins.map(\.id))
        files = files.filter { ids.contains($0.key) }
        progress = progress.filter { ids.contains($0.key) }
        failed.formIntersection(ids)
        requested.formIntersection(ids.union(downloading))
    }

    mutating func downloadProgressed(_ id: String, _ fraction: Double) { progress[id] = fraction }

    mutating func downloaded(_ id: String, _ result: Result<String, DownloadError>) -> DownloadOutcome {
        downloading.remove(id)
        switch result {
        case .success(let path):
            files[id] = path
        case .failure(.cancelled):
            requested.remove(id) // asked again at the next update
        case .failure(.cache(_, let error)) where { if case .noSpace = error { true } else { false } }():
            // The budget cannot hold what must play next: a configuration error, said as the state.
            failed.insert(id)
            configurationProblem = "\(error)"
            return .configurationProblem("\(error)")
        case .failure(.backedOff):
            failed.insert(id) // named when it failed; once in the log is enough
        case .failure(let error):
            failed.insert(id)
            return .notice("spin \(id) will be silent: \(error)")
        }
        return .quiet
    }

    /// A fetch was made at `monotonic` seconds; `now`, when it is the first, says which spin it counts for.
    mutating func fetched(at monotonic: Double, now: Date? = nil) {
        lastRefresh = monotonic
        if let now { lastNowPlaying = schedule.nowPlaying(at: now)?.id }
    }

    /// Whether to fetch again: a spin started since the last look, or the refresh interval has passed.
    mutating func refreshDue(now: Date, at monotonic: Double) -> Bool {
        let playing = schedule.nowPlaying(at: now)?.id
        let spinStarted = playing != nil && playing != lastNowPlaying
        lastNowPlaying = playing ?? lastNowPlaying
        return spinStarted || monotonic - lastRefresh >= refreshInterval
    }

    /// How long the schedule can be left alone: until a spin comes within the lookahead, starts or ends, or
    /// the refresh is due; at most `limit` (a second where nothing says that the wall clock was set: a
    /// stepped clock is then seen within it).
    func secondsUntilTheProgramChanges(now: Date, at monotonic: Double, atMost limit: Double) -> Double {
        var next = min(limit, lastRefresh + refreshInterval - monotonic)
        for spin in schedule.spins {
            for change in [spin.airtime.addingTimeInterval(-lookahead), spin.airtime, spin.fileEnd] {
                let seconds = change.timeIntervalSince(now)
                if seconds > 0, seconds < next { next = seconds }
            }
            if spin.airtime.timeIntervalSince(now) - lookahead > next { break } // the spins are in airtime order
        }
        return max(0.005, next)
    }
}

extension Spin {
    /// When its file has played out, by the length the schedule gives it (`endtime` is when its message ends).
    var fileEnd: Date { airtime.addingTimeInterval(Double(audioBlock.durationMS) / 1000) }
}
