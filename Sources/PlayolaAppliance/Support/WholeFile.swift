import FoundationEssentials
import Glibc
import PlayolaEngine

/// Small files read and replaced whole: the state, the device id, the last good configuration. A write
/// survives a power cut at any instant: the reader finds the old file or the new one, never neither and
/// never a mix, because the new bytes reach the disk under a temporary name before `rename` swaps them in,
/// and the directory is synced so the swap itself is on the disk when `write` returns.
package enum WholeFile {
    package enum ReadProblem: Error, Equatable, CustomStringConvertible {
        case missing
        case unreadable(reason: String)
        case tooLarge(limit: Int)

        package var description: String {
            switch self {
            case .missing: "does not exist"
            case .unreadable(let reason): "cannot be read: \(reason)"
            case .tooLarge(let limit): "is larger than \(limit) bytes"
            }
        }
    }

    /// The file's bytes; more than `limit` is refused before it is read, so a wrong path (a device, a
    /// disk image) never sizes an allocation.
    package static func read(_ path: String, limit: Int) -> Result<Data, ReadProblem> {
        do {
            let file = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
            defer { file.close() }
            guard let bytes = try file.readAll(limit: limit) else { return .failure(.tooLarge(limit: limit)) }
            return .success(Data(bytes))
        } catch {
            return .failure(error == .noEntry || error == .notDirectory ? .missing : .unreadable(reason: error.description))
        }
    }

    /// Why a write did not complete. Before `.syncDirectory` the target is untouched; at `.syncDirectory` it
    /// holds the new bytes, which a power cut may still undo.
    package struct WriteError: Error, Equatable, CustomStringConvertible {
        package enum Step: String, Sendable {
            case create = "creating a temporary file beside it"
            case write = "writing the temporary file"
            case sync = "syncing the temporary file"
            case rename = "renaming the temporary file over it"
            case syncDirectory = "syncing its directory"
        }

        package var path: String
        package var step: Step
        package var reason: Errno

        package init(path: String, step: Step, reason: Errno) {
            self.path = path
            self.step = step
            self.reason = reason
        }

        package var description: String { "cannot write \(path) (\(step.rawValue)): \(reason)" }
    }

    /// Replaces `path` with `data`: a new temporary file, fsync, rename over `path`, fsync of the directory.
    /// `mode` is the file's permission bits (the umask does not apply).
    package static func write(_ data: Data, to path: String, mode: mode_t) throws(WriteError) {
        // A new temporary name each time, so two writers (or a leftover from a cut) never share one.
        var temporary = ""
        var created: FileDescriptor?
        repeat {
            temporary = path + temporarySuffix + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            do {
                created = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_EXCL, permissions: 0o600)
            } catch {
                guard error == .exists else { throw WriteError(path: path, step: .create, reason: error) }
            }
        } while created == nil
        let file = created!
        var step = WriteError.Step.write
        do throws(Errno) {
            // Data's withUnsafeBytes rethrows untyped: the Errno comes out as a value.
            let failure = data.withUnsafeBytes { bytes -> Errno? in
                do throws(Errno) { try file.writeAll(bytes) } catch { return error }
                return nil
            }
            if let failure { throw failure }
            _ = try retryOnInterrupt { fchmod(file.rawValue, mode) }
            pauseForTests()
            step = .sync
            try file.sync()
            file.close()
            pauseForTests()
            step = .rename
            _ = try retryOnInterrupt { rename(temporary, path) }
        } catch {
            if step != .rename { file.close() }
            unlink(temporary)
            throw WriteError(path: path, step: step, reason: error)
        }
        pauseForTests()
        try syncDirectory(of: path)
    }

    /// Makes a rename (or unlink) in `path`'s directory durable.
    package static func syncDirectory(of path: String) throws(WriteError) {
        do { try syncToDisk(directory(of: path), O_DIRECTORY) } catch { throw WriteError(path: path, step: .syncDirectory, reason: error) }
    }

    /// What `write` puts between the target's name and the random part of its temporary file's name.
    static let temporarySuffix = ".tmp."

    /// Deletes the temporary files a write to `path` left behind when it was cut off (a crash, a power cut).
    /// Call it only where nothing else is writing `path`: at start-up.
    package static func removeLeftovers(of path: String) {
        let folder = directory(of: path)
        let prefix = String(path.dropFirst(folder == "/" ? 1 : folder.count + 1)) + temporarySuffix
        for name in (try? directoryNames(folder)) ?? [] where name.hasPrefix(prefix) { unlink((folder == "/" ? "" : folder) + "/" + name) }
    }

    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Test seam: `PLAYOLA_TEST_WRITE_PAUSE=SECONDS` (read once, at most 10) pauses each write between its
    /// steps, so a test can kill the service in the middle of one. Unset, it costs nothing.
    private static let testPause: UInt32 = {
        guard let text = getenv("PLAYOLA_TEST_WRITE_PAUSE"), let seconds = Double(String(cString: text)),
              seconds.isFinite, seconds > 0 else { return 0 }
        return UInt32(min(seconds, 10) * 1_000_000)
    }()

    private static func pauseForTests() {
        if testPause > 0 { usleep(testPause) }
    }
}
