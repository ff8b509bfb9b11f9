import FoundationEssentials
import Glibc
import PlayolaEngine
import PlayolaApplianceSupport

/// What survives a restart: the station last played, whether it was playing, the volume.
struct ApplianceState: Codable, Equatable, Sendable {
    var station: String?
    var playing: Bool = true
    var volume: Int?
}

/// The state file under the state directory, replaced whole (`WholeFile.write`) and only when something
/// changed, so steady playback writes nothing to the SD card.
struct StateStore: Sendable {
    /// Far more than a state record; a bigger file is not one.
    static let maximumSize = 64 << 10

    let directory: String
    var path: String { directory + "/state.json" }
    /// The last write failure logged, so a read-only or full disk is reported once, not at every change.
    private var reportedFailure: WholeFile.WriteError?

    init(directory: String) { self.directory = directory }

    /// The saved state, or nil when there is none. Called once, at start-up: a file that cannot be a
    /// state (empty, cut short, not JSON, out of range) is set aside as `state.json.damaged` with a warning,
    /// and the configured station plays.
    func load() -> ApplianceState? {
        WholeFile.removeLeftovers(of: path)
        let problem: String
        switch WholeFile.read(path, limit: Self.maximumSize) {
        case .failure(.missing): return nil
        case .failure(let reason): problem = "it \(reason)"
        case .success(let data):
            switch Self.decode(data) {
            case .success(let state): return state
            case .failure(let reason): problem = reason.description
            }
        }
        SetAside.damaged(path, problem: problem, consequence: "playing the configured station")
        return nil
    }

    struct Damage: Error, CustomStringConvertible {
        var description: String
    }

    static func decode(_ data: Data) -> Result<ApplianceState, Damage> {
        guard !data.isEmpty else { return .failure(Damage(description: "it is empty")) }
        guard data.contains(where: { $0 != 0 }) else { return .failure(Damage(description: "it holds only zero bytes (\(data.count))")) }
        let state: ApplianceState
        do {
            state = try JSONDecoder().decode(ApplianceState.self, from: data)
        } catch {
            return .failure(Damage(description: "it is not a state record (\(data.count) bytes of \(kind(of: error)))"))
        }
        if let volume = state.volume, !(0...100).contains(volume) {
            return .failure(Damage(description: "its volume \(volume) is not a percentage"))
        }
        return .success(state)
    }

    private static func kind(of error: any Error) -> String {
        if case DecodingError.dataCorrupted = error { return "invalid or truncated JSON" }
        return "JSON of another shape"
    }

    /// Writes `state` unless it equals `previous`; returns whether it wrote. A failure is logged (once until
    /// a write succeeds again) and the caller keeps `previous`, so the next change tries again.
    @discardableResult
    mutating func save(_ state: ApplianceState, previous: ApplianceState?) -> Bool {
        guard state != previous, let data = try? JSONEncoder().encode(state) else { return false }
        do throws(WholeFile.WriteError) {
            try WholeFile.write(data, to: path, mode: 0o640)
            reportedFailure = nil
            return true
        } catch {
            if error != reportedFailure { log(.warning, "the state is not saved: \(error)") }
            reportedFailure = error
            return false
        }
    }
}

/// The device id reported with listening sessions: a UUID made once and kept in the state directory.
package enum DeviceIdentity {
    package static func load(directory: String) -> String {
        let path = directory + "/device-id"
        WholeFile.removeLeftovers(of: path)
        switch WholeFile.read(path, limit: 4096) {
        case .success(let data):
            let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
            if UUID(uuidString: text) != nil { return text }
            SetAside.damaged(path, problem: data.isEmpty ? "it is empty" : "it holds no UUID", consequence: "making a new device id")
        case .failure(.missing): break
        case .failure(let problem):
            SetAside.damaged(path, problem: "it \(problem)", consequence: "making a new device id")
        }
        let id = UUID().uuidString
        do throws(WholeFile.WriteError) {
            try WholeFile.write(Data((id + "\n").utf8), to: path, mode: 0o640)
        } catch {
            log(.warning, "the device id is not saved, another will be made at the next start: \(error)")
        }
        return id
    }
}

/// A damaged file is renamed out of the way, not deleted: it may tell what went wrong.
enum SetAside {
    static func damaged(_ path: String, problem: String, consequence: String) {
        let aside = path + ".damaged"
        if rename(path, aside) == 0 {
            try? WholeFile.syncDirectory(of: path)
            log(.warning, "\(path) is damaged: \(problem); set aside as \(aside), \(consequence)")
        } else {
            log(.warning, "\(path) is damaged: \(problem); it cannot be set aside (\(Errno.current)), \(consequence)")
        }
    }
}
