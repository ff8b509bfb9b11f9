import FoundationEssentials
import Glibc

/// What survives a restart: the station last played, whether it was playing, the volume.
struct ApplianceState: Codable, Equatable, Sendable {
    var station: String?
    var playing: Bool = true
    var volume: Int?
}

/// The state file under the state directory, written atomically (temporary file, fsync, rename) and
/// only when something changed, so steady playback writes nothing to the SD card.
struct StateStore: Sendable {
    let directory: String
    var path: String { directory + "/state.json" }

    func load() -> ApplianceState? {
        guard let data = readWholeFile(path) else { return nil }
        return try? JSONDecoder().decode(ApplianceState.self, from: data)
    }

    /// Writes `state` unless it equals `previous`; returns whether it wrote.
    @discardableResult
    func save(_ state: ApplianceState, previous: ApplianceState?) -> Bool {
        guard state != previous, let data = try? JSONEncoder().encode(state) else { return false }
        return writeAtomically(data, to: path)
    }
}

/// The device id reported with listening sessions: a UUID made once and kept in the state directory.
enum DeviceIdentity {
    static func load(directory: String) -> String {
        let path = directory + "/device-id"
        if let data = readWholeFile(path) {
            let text = String(decoding: data, as: UTF8.self).trimmingWhitespace()
            if UUID(uuidString: text) != nil { return text }
        }
        let id = UUID().uuidString
        writeAtomically(Data((id + "\n").utf8), to: path)
        return id
    }
}

/// Writes a whole file through a temporary name, fsynced, then renamed over the target.
@discardableResult
func writeAtomically(_ data: Data, to path: String) -> Bool {
    let temporary = path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return false }
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd) == 0
    close(fd)
    guard written == data.count, synced, rename(temporary, path) == 0 else {
        unlink(temporary)
        return false
    }
    return true
}

/// The whole file, or nil (errno says why).
func readWholeFile(_ path: String) -> Data? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got < 0 { return nil }
        if got == 0 { return data }
        data.append(contentsOf: chunk[0..<got])
    }
}
