import FoundationEssentials
import Glibc

/// Small files read and replaced whole: the state, the device id, the last good configuration. A write
/// survives a power cut at any instant: the reader finds the old file or the new one, never neither and
/// never a mix, because the new bytes reach the disk under a temporary name before `rename` swaps them in,
/// and the directory is synced so the swap itself is on the disk when `write` returns.
enum WholeFile {
    enum ReadProblem: Error, Equatable, CustomStringConvertible {
        case missing
        case unreadable(reason: String)
        case tooLarge(limit: Int)

        var description: String {
            switch self {
            case .missing: "does not exist"
            case .unreadable(let reason): "cannot be read: \(reason)"
            case .tooLarge(let limit): "is larger than \(limit) bytes"
            }
        }
    }

    /// The file's bytes; more than `limit` is refused before it is read, so a wrong path (a device, a
    /// disk image) never sizes an allocation.
    static func read(_ path: String, limit: Int) -> Result<Data, ReadProblem> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(reason: errorText())) }
        defer { close(fd) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { return .failure(.unreadable(reason: errorText())) }
            if got == 0 { return .success(data) }
            guard data.count + got <= limit else { return .failure(.tooLarge(limit: limit)) }
            data.append(contentsOf: chunk[0..<got])
        }
    }

    /// Why a write did not complete. Before `.syncDirectory` the target is untouched; at `.syncDirectory` it
    /// holds the new bytes, which a power cut may still undo.
    struct WriteError: Error, Equatable, CustomStringConvertible {
        enum Step: String, Sendable {
            case create = "creating a temporary file beside it"
            case write = "writing the temporary file"
            case sync = "syncing the temporary file"
            case rename = "renaming the temporary file over it"
            case syncDirectory = "syncing its directory"
        }

        var path: String
        var step: Step
        /// strerror's text.
        var reason: String

        var description: String { "cannot write \(path) (\(step.rawValue)): \(reason)" }
    }

    /// Replaces `path` with `data`: a new temporary file, fsync, rename over `path`, fsync of the directory.
    /// `mode` is the file's permission bits (the umask does not apply).
    static func write(_ data: Data, to path: String, mode: mode_t) throws(WriteError) {
        func failure(_ step: WriteError.Step) -> WriteError { WriteError(path: path, step: step, reason: errorText()) }
        // A new temporary name each time, so two writers (or a leftover from a cut) never share one.
        var temporary = ""
        var fd: Int32 = -1
        repeat {
            temporary = path + temporarySuffix + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        } while fd < 0 && errno == EEXIST
        guard fd >= 0 else { throw failure(.create) }
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            if count == 0 { errno = ENOSPC }
            guard count > 0 else { break }
            written += count
        }
        var failed: WriteError?
        if written < data.count || fchmod(fd, mode) != 0 {
            failed = failure(.write)
        } else {
            pauseForTests()
            if fsync(fd) != 0 { failed = failure(.sync) }
        }
        close(fd)
        if let failed {
            unlink(temporary)
            throw failed
        }
        pauseForTests()
        guard rename(temporary, path) == 0 else {
            let error = failure(.rename)
            unlink(temporary)
            throw error
        }
        pauseForTests()
        try syncDirectory(of: path)
    }

    /// Makes a rename (or unlink) in `path`'s directory durable.
    static func syncDirectory(of path: String) throws(WriteError) {
        let fd = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw WriteError(path: path, step: .syncDirectory, reason: errorText()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw WriteError(path: path, step: .syncDirectory, reason: errorText()) }
    }

    /// What `write` puts between the target's name and the random part of its temporary file's name.
    static let temporarySuffix = ".tmp."

    /// Deletes the temporary files a write to `path` left behind when it was cut off (a crash, a power cut).
    /// Call it only where nothing else is writing `path`: at start-up.
    static func removeLeftovers(of path: String) {
        let folder = directory(of: path)
        let prefix = String(path.dropFirst(folder == "/" ? 1 : folder.count + 1)) + temporarySuffix
        guard let stream = opendir(folder) else { return }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix) { names.append(name) }
        }
        for name in names { unlink((folder == "/" ? "" : folder) + "/" + name) }
    }

    static func directory(of path: String) -> String {
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

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
