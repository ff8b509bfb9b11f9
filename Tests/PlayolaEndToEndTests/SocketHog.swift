import Foundation
import Synchronization
import XCTest
import PlayolaTestSupport

/// A hostile member of the control socket's group: `Tests/Support/socket_hog.py`, run as another user
/// (setpriv), holding as many slots as the service gives it, in rounds; each round's counts as they come.
final class SocketHog {
    /// The group the hogs run in; the tests give the socket to it, as the package gives it to `playola`.
    static let group: gid_t = 60000

    private let process = Process()
    private let folder: String
    private let lifeline = Pipe()
    /// What the hog printed: the bytes of a line not yet ended, and its lines.
    private final class Output: Sendable {
        let state = Mutex<(partial: Data, lines: [String])>((Data(), []))
    }
    private let output = Output()

    /// Needs root (setpriv changes the user). `connections` per round, each round `hold` seconds.
    init(uid: uid_t, socket: String, connections: Int, hold: Double = 1.8) throws {
        let support = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support").path
        // A copy the other user can read, with the module it imports: the checkout may sit in a folder only
        // root may enter (a clone in a 0700 mktemp folder, as ../shared/ci-local makes).
        folder = NSTemporaryDirectory() + "playola-socket-hog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        for file in ["socket_hog.py", "lifetime.py"] {
            try FileManager.default.copyItem(atPath: support + "/" + file, toPath: folder + "/" + file)
            chmod(folder + "/" + file, 0o644)
        }
        let script = folder + "/socket_hog.py"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // The system's python: one installed for root alone (pyenv under /root) is not the other user's to run.
        process.arguments = ["--reuid=\(uid)", "--regid=\(Self.group)", "--clear-groups", "/usr/bin/python3", script, socket,
                             "--connections", "\(connections)", "--hold", "\(hold)", "--exit-on-stdin-eof"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = lifeline
        out.fileHandleForReading.readabilityHandler = { [output] handle in
            guard let data = handle.readAvailable() else { return handle.readabilityHandler = nil }
            output.state.withLock { state in
                state.partial.append(data)
                while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                    state.lines.append(String(decoding: state.partial[state.partial.startIndex..<newline], as: UTF8.self))
                    state.partial.removeSubrange(state.partial.startIndex...newline)
                }
            }
        }
        try process.run()
    }

    /// The first `count` rounds, waiting until `deadline` for them (fewer if they did not come).
    func rounds(_ count: Int, by deadline: Date) -> [[String: Any]] {
        while output.state.withLock({ $0.lines.count }) < count, process.isRunning, Date() < deadline { usleep(50_000) }
        return output.state.withLock { Array($0.lines.prefix(count)) }
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Lets the hogs' group reach `socket` (mode 0660), as the package's `playola` group does.
    static func admitGroup(to socket: String) {
        XCTAssertEqual(chown(socket, 0, group), 0, "chown \(socket): \(String(cString: strerror(errno)))")
    }
}
