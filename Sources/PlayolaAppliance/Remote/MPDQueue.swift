import PlayolaControl
import Synchronization

/// The queue MPD clients see: the spin on air at position 0 and the spins coming up after it (a stream is one
/// entry). A spin keeps its song id while it is in the queue, and the queue's version grows at each change of
/// it, as MPD's own ids and version do; clients compare both to know what to fetch again.
final class MPDQueue: Sendable {
    struct Song: Sendable, Equatable {
        var id: Int
        var position: Int
        var file: String
        var title: String
        var artist: String
        /// Seconds; nil for a stream.
        var length: Double?
    }

    private struct State {
        var ids: [String: Int] = [:]
        var nextID = 1
        var keys: [String] = []
        var version = 1
    }

    private let state = Mutex(State())

    /// The queue of `report`, and its version.
    func songs(of report: StatusReport) -> (songs: [Song], version: Int) {
        var entries: [(key: String, song: Song)] = []
        func song(_ file: String, _ spin: StatusReport.SpinInfo?) -> Song {
            Song(id: 0, position: entries.count, file: file, title: spin?.title ?? "", artist: spin?.artist ?? "", length: spin?.length)
        }
        if let stream = report.stream {
            // A stream is one song whatever its titles: MPD keeps a stream's id while its tags change.
            entries.append(("stream \(report.station ?? "") \(stream.url)", song(stream.url, report.spin)))
        } else if report.state != .idle {
            for spin in [report.spin].compactMap({ $0 }) + (report.upcoming ?? []) {
                entries.append((spin.id ?? "\(spin.airtime) \(spin.title)", song(spin.file ?? "", spin)))
            }
        }
        let keys = entries.map(\.key)
        return state.withLock { state in
            if keys != state.keys {
                state.version += 1
                state.keys = keys
                var ids: [String: Int] = [:]
                for key in keys {
                    if let id = state.ids[key] {
                        ids[key] = id
                    } else {
                        ids[key] = state.nextID
                        // MPD's ids are unsigned 32-bit; after 2^31 spins (a spin a second for 68 years) they start again.
                        state.nextID = state.nextID == Int(Int32.max) ? 1 : state.nextID + 1
                    }
                }
                state.ids = ids
            }
            let songs = entries.map { entry in
                var song = entry.song
                song.id = state.ids[entry.key] ?? 0
                return song
            }
            return (songs, state.version)
        }
    }
}
