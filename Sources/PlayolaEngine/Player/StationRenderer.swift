import FoundationEssentials
import PlayolaLive
import PlayolaModel
import PlayolaNetwork
import PlayolaOutput
import Synchronization

/// Renders a live Playola station in virtual time: the schedule comes from the API, the files through
/// the cache, and the clock waits for a spin that is still downloading instead of playing silence, so the
/// output is deterministic. (Live playback never waits: that is `StationPlayer`.)
public final class StationRenderer: Sendable {
    public let api: PlayolaAPI
    public let downloader: AudioDownloader
    public let stationID: String
    private let files = Mutex<[String: String]>([:])

    public init(api: PlayolaAPI, downloader: AudioDownloader, stationID: String) {
        self.api = api
        self.downloader = downloader
        self.stationID = stationID
    }

    /// Renders `seconds` from `start` into `sink`; `report` gets what played when, and notices.
    public func render(
        from start: Date, seconds: Double, into sink: any AudioSink,
        report: @escaping @Sendable (PlayEvent) -> Void, notice: @escaping @Sendable (String) -> Void
    ) async throws(StationRenderError) {
        let fetch: ScheduleFetch
        do {
            fetch = try await api.fetchScheduleRetrying(stationID: stationID)
        } catch {
            throw .schedule(error)
        }
        for dropped in fetch.dropped { notice("\(dropped)") }
        let schedule = fetch.schedule
        let renderer = ProgramRenderer(
            schedule: schedule, from: start, sink: SinkHandoff(sink).sink,
            resolveFile: { [self] spin in self.files.withLock { $0[spin.id] } }, report: report)
        let end = start.addingTimeInterval(seconds)
        let step = 1.0
        var rendered = 0.0
        var fetched: Set<String> = []
        while rendered < seconds {
            let chunk = min(step, seconds - rendered)
            let chunkEnd = start.addingTimeInterval(rendered + chunk)
            // Everything that starts before this chunk ends must be here first: the virtual clock waits.
            let due = schedule.spins.filter { spin in
                !fetched.contains(spin.id) && spin.airtime < chunkEnd
                    && spin.airtime.addingTimeInterval(Double(spin.audioBlock.durationMS) / 1000) > start
            }
            let window = schedule.spins.filter { $0.airtime < min(end, chunkEnd.addingTimeInterval(600)) && $0.airtime.addingTimeInterval(Double($0.audioBlock.durationMS) / 1000) > chunkEnd.addingTimeInterval(-1) }
            downloader.cache.setPinned(Set(window.compactMap(\.audioBlock.downloadURL)))
            for spin in due {
                fetched.insert(spin.id)
                guard let url = spin.audioBlock.downloadURL else { continue }
                switch await downloader.file(for: url) {
                case .success(let path): self.files.withLock { $0[spin.id] = path }
                case .failure(let error): notice("spin \(spin.id) will be silent: \(error)")
                }
            }
            do {
                try renderer.render(frames: Int64((chunk * Double(sink.sampleRate)).rounded()))
            } catch {
                throw .sink(error)
            }
            rendered += chunk
        }
        do { try sink.drain() } catch { throw .sink(error) }
    }
}

public enum StationRenderError: Error, CustomStringConvertible {
    case schedule(PlayolaAPIError)
    case sink(AudioSinkError)

    public var description: String {
        switch self {
        case .schedule(let error): "\(error)"
        case .sink(let error): "\(error)"
        }
    }
}
