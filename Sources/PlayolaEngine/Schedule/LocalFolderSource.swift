import FoundationEssentials
import Glibc
import PlayolaDecoding
import PlayolaModel
import PlayolaSupport
import Synchronization

/// A folder of audio files played as an endless wall-clock schedule: the files in name order, looping,
/// named by their tags (title and artist) where they have them,
/// each overlapping the next by a short crossfade. The loop is anchored to a fixed epoch, so the wall
/// clock alone says what plays — a restart (or a resume) lands where the "broadcast" is, as on a
/// Playola station, and the same schedule → mixer path plays it.
public struct LocalFolderSource: ScheduleSource {
    public let stationID: String
    public let path: String
    public var reportsListening: Bool { false }
    public let crossfade: Double
    private let clock: any WallClock
    /// The loop's origin: 2000-01-01T00:00:00Z.
    static let epoch = Date(timeIntervalSince1970: 946_684_800)
    static let extensions: Set<String> = ["mp3", "m4a", "mp4", "aac", "wav", "flac", "ogg", "oga", "opus"]

    /// The folder's own files, as its schedule names them (`file://` + folder + `/` + name), if they are
    /// still regular files: a FIFO or a device put in their place is not opened.
    public func localFile(for url: String) -> String? {
        let prefix = "file://" + path + "/"
        guard url.hasPrefix(prefix) else { return nil }
        let name = url.dropFirst(prefix.count)
        guard !name.isEmpty, !name.contains("/"), name != "..", name != "." else { return nil }
        let file = path + "/" + name
        return Self.isRegularFile(file) ? file : nil
    }

    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    public init(stationID: String, path: String, crossfade: Double = 2, clock: any WallClock = SystemClock()) {
        self.stationID = stationID
        self.path = path
        self.crossfade = crossfade
        self.clock = clock
    }

    public func fetchSchedule(retrying: Bool) async throws(ScheduleSourceError) -> ScheduleFetch {
        let tracks = try Self.cachedTracks(in: path, stationID: stationID)
        let cycle = tracks.reduce(0) { $0 + $1.seconds - crossfade }
        guard cycle > 0 else { throw .nothingToPlay(stationID: stationID, path: path) }
        // The spins of the loop from the cycle before now to an hour ahead.
        let now = clock.now()
        var start = Self.epoch.addingTimeInterval((now.timeIntervalSince(Self.epoch) / cycle).rounded(.down) * cycle - cycle)
        var spins: [Spin] = []
        var loop = Int((start.timeIntervalSince(Self.epoch) / cycle).rounded())
        while start < now.addingTimeInterval(3600) {
            for (index, track) in tracks.enumerated() {
                let ms = Int(track.seconds * 1000)
                let fadeMS = Int(crossfade * 1000)
                spins.append(Spin(
                    id: "\(stationID)-\(loop)-\(index)", stationID: stationID, airtime: start, startingVolume: 1,
                    fades: [Fade(atMS: max(0, ms - fadeMS), toVolume: 0)],
                    audioBlock: AudioBlock(
                        id: track.file, title: track.title, artist: track.artist, type: "song", durationMS: ms,
                        endOfMessageMS: max(0, ms - fadeMS), downloadURL: "file://" + path + "/" + track.file)))
                start = start.addingTimeInterval(track.seconds - crossfade)
            }
            loop += 1
        }
        return ScheduleFetch(schedule: Schedule(spins: spins), dropped: [], serverDate: nil)
    }

    struct Track: Sendable {
        var file: String
        /// From the file's tags; its name without the extension when it has none.
        var title: String
        var artist: String
        var seconds: Double
    }

    /// The folder is probed again only when it changed (its mtime), not at every 20 s refresh: a large
    /// folder would otherwise have every file opened three times a minute.
    private static let probed = Mutex<[String: (modified: Int, tracks: [Track])]>([:])

    static func cachedTracks(in path: String, stationID: String) throws(ScheduleSourceError) -> [Track] {
        var info = stat()
        let modified = stat(path, &info) == 0 ? Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec) : -1
        if let known = probed.withLock({ $0[path] }), known.modified == modified, modified >= 0 { return known.tracks }
        let tracks = try Self.tracks(in: path, stationID: stationID)
        probed.withLock { $0[path] = (modified, tracks) }
        return tracks
    }

    /// The playable files of the folder in name order, with their lengths; unplayable ones are skipped.
    static func tracks(in path: String, stationID: String) throws(ScheduleSourceError) -> [Track] {
        let all: [String]
        do { all = try directoryNames(path) } catch { throw .unreadableFolder(stationID: stationID, path: path, reason: error.description) }
        let names = all.filter { !$0.hasPrefix(".") && extensions.contains($0.split(separator: ".").last.map { $0.lowercased() } ?? "") }
        var tracks: [Track] = []
        for name in names.sorted() where isRegularFile(path + "/" + name) {
            guard let decoder = try? openAudioFile(path: path + "/" + name), let frames = decoder.frameCount else { continue }
            let seconds = Double(frames) / Double(decoder.sampleRate)
            guard seconds > 4 else { continue } // shorter than two crossfades: nothing to hear between them
            let tags = AudioFileTags.read(path: path + "/" + name)
            let title = tags?.title ?? name.split(separator: ".").dropLast().joined(separator: ".")
            tracks.append(Track(file: name, title: title, artist: tags?.artist ?? "", seconds: seconds))
        }
        guard !tracks.isEmpty else { throw .nothingToPlay(stationID: stationID, path: path) }
        return tracks
    }
}
