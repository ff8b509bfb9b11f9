import Glibc
import PlayolaSupport
import Synchronization

/// Space set aside for one download in progress.
public struct CacheReservation: Sendable, Equatable {
    public let url: String
    /// Where the download writes; `commit` renames it to the final path.
    public let temporaryPath: String
    /// Bytes set aside for the whole file, `existingBytes` included. The writer must not go past this
    /// without `grow`, or the files on disk exceed the budget.
    public let bytes: Int64
    /// Bytes already in `temporaryPath` from an earlier attempt: resume with a Range request from here.
    public let existingBytes: Int64
}

public struct CacheUsage: Sendable, Equatable {
    /// Bytes of complete files.
    public var storedBytes: Int64
    /// Bytes set aside for downloads in progress.
    public var reservedBytes: Int64
    /// Complete files.
    public var files: Int
    /// Bytes of complete files that are pinned.
    public var pinnedBytes: Int64

    public init(storedBytes: Int64, reservedBytes: Int64, files: Int, pinnedBytes: Int64) {
        self.storedBytes = storedBytes
        self.reservedBytes = reservedBytes
        self.files = files
        self.pinnedBytes = pinnedBytes
    }
}

/// A directory of downloaded audio files under a hard byte budget.
///
/// Complete files plus the space reserved for downloads in progress never exceed `budgetBytes`, at any
/// instant: space is made (evicting unpinned files, least recently used first) before it is handed out,
/// and a file is deleted before its space is given back. The cache deletes only files whose names it
/// makes (`CacheKey`): anything else in the directory is someone else's and is left alone, uncounted.
/// The marker file (`markerName`) says the directory is a cache's.
public final class AudioCache: Sendable {
    public let directory: String
    public let budgetBytes: Int64
    private let state: Mutex<State>
    /// URLs whose check was under way when the process last died (their `.probe` marker survived): the
    /// decoder may have crashed on them, so their files were deleted at start and they should not be
    /// fetched again soon.
    public let crashedDuringProbe: [String]

    /// The file that marks a directory as a cache's (`check-config` refuses a non-empty folder without it).
    public static let markerName = ".playola-cache"

    /// Creates `directory` if needed and scans it: complete files are kept (least recently used is the
    /// oldest mtime), partial downloads and files whose check was interrupted are deleted, then LRU files
    /// are evicted down to the budget. Files not named by the cache are not touched.
    public init(directory: String, budgetBytes: Int64) throws(CacheError) {
        var trimmed = directory
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.directory = trimmed
        self.budgetBytes = budgetBytes
        try Disk.makeDirectories(trimmed)
        var state = State(directory: trimmed, budget: budgetBytes)
        let scanned = try state.scan()
        crashedDuringProbe = scanned.crashed
        try state.evict(downTo: budgetBytes)
        self.state = Mutex(state)
        // Someone's folder stays unmarked, so `check-config` goes on refusing it.
        if scanned.owned { Disk.writeMarker(trimmed + "/" + Self.markerName) }
    }

    /// Whether the cache may use `directory`: it does not exist, holds the marker, or holds nothing but
    /// names the cache makes (an empty folder, or a cache from before the marker). A failure when it
    /// cannot be listed.
    public static func mayUse(_ directory: String) -> Result<Bool, CacheError> {
        do {
            return .success(owns(try directoryNames(directory)))
        } catch {
            return error == .noEntry ? .success(true) : .failure(.io(path: directory, reason: "cannot list: \(error)"))
        }
    }

    static func owns(_ names: [String]) -> Bool {
        names.contains(markerName) || names.allSatisfy { CacheKey.isKey($0) || CacheKey.isPart($0) || CacheKey.isProbe($0) }
    }

    public static func key(for url: String) -> String { CacheKey.key(for: url) }

    /// The final path of `url`'s file; it may not exist.
    public func path(for url: String) -> String { directory + "/" + Self.key(for: url) }

    private func temporaryPath(for url: String) -> String { path(for: url) + CacheKey.partSuffix }

    /// Path of a complete cached file, and marks it most recently used; nil if not cached.
    public func lookup(_ url: String) -> String? {
        let key = Self.key(for: url)
        return state.withLock { state in
            guard state.entries[key] != nil else { return nil }
            // A file deleted behind our back is not cached, whatever the bookkeeping says.
            guard Disk.size(of: state.path(key)) != nil else {
                state.forget(key)
                return nil
            }
            state.touch(key)
            return state.path(key)
        }
    }

    /// Replaces the set of pinned URLs (the player's playing + upcoming spins). Pinned files are never evicted.
    public func setPinned(_ urls: Set<String>) {
        let keys = Set(urls.map(Self.key(for:)))
        state.withLock { $0.pinned = keys }
    }

    /// Makes room for `bytes` (evicting unpinned LRU complete files) and reserves it for a download to
    /// `reservation.temporaryPath`. If the URL already has a reservation, returns it (growing it to `bytes`
    /// if larger). An existing temporary file is kept so the download can resume: `existingBytes` says
    /// how long it is.
    public func reserve(_ url: String, bytes: Int64) throws(CacheError) -> CacheReservation {
        let temporary = temporaryPath(for: url)
        return try state.withLock { state throws(CacheError) -> CacheReservation in
            let reserved = state.reservations[url] != nil
            var existing = Disk.size(of: temporary) ?? 0
            if !reserved, existing > bytes {
                // Longer than the whole file, so it is not this file's beginning.
                try Disk.remove(temporary)
                existing = 0
            }
            do throws(CacheError) {
                try state.reserve(url, bytes: max(bytes, existing))
            } catch {
                // Unaccounted bytes on disk would break the budget; the download starts over later.
                if !reserved, existing > 0 { try? Disk.remove(temporary) }
                throw error
            }
            return CacheReservation(
                url: url, temporaryPath: temporary, bytes: state.reservations[url] ?? 0, existingBytes: existing)
        }
    }

    /// Grows a reservation (for downloads whose length was unknown); throws if it cannot fit.
    public func grow(_ reservation: CacheReservation, to bytes: Int64) throws(CacheError) {
        try state.withLock { state throws(CacheError) in
            guard state.reservations[reservation.url] != nil else {
                throw .io(path: reservation.temporaryPath, reason: "no download in progress for \(reservation.url)")
            }
            try state.reserve(reservation.url, bytes: bytes)
        }
    }

    /// The download is complete: fsyncs and renames the temporary file to the final path, which is returned.
    /// The entry's size is the file's real size; a file larger than reserved is first grown into, and
    /// `noSpace` is thrown if it cannot be. On error the reservation stays: `abandon` it.
    public func commit(_ reservation: CacheReservation) throws(CacheError) -> String {
        let url = reservation.url
        let key = Self.key(for: url)
        let temporary = temporaryPath(for: url)
        return try state.withLock { state throws(CacheError) -> String in
            guard state.reservations[url] != nil else {
                throw .io(path: temporary, reason: "no download in progress for \(url)")
            }
            guard let size = Disk.size(of: temporary) else {
                throw .io(path: temporary, reason: "cannot commit: \(Errno.current)")
            }
            try state.reserve(url, bytes: size)
            do { try syncToDisk(temporary) } catch { throw .io(path: temporary, reason: "cannot sync: \(error)") }
            let final = state.path(key)
            guard rename(temporary, final) == 0 else {
                throw .io(path: temporary, reason: "cannot rename to \(final): \(Errno.current)")
            }
            // Without this a crash may undo the rename; the scan then deletes the `.part`, which is safe.
            try? syncToDisk(state.directory, O_DIRECTORY)
            // A re-download replaced the old file (`add` forgets it); its bytes left the disk with the rename.
            state.release(url)
            state.add(key, bytes: size)
            return final
        }
    }

    /// Drops a reservation and deletes its temporary file. If the file cannot be deleted, its space stays
    /// reserved (the bytes are still on disk); a later `reserve` of the URL gets it back.
    public func abandon(_ reservation: CacheReservation) {
        let temporary = temporaryPath(for: reservation.url)
        state.withLock { state in
            // Deleted before the space is released, so no one else is given bytes still on disk.
            guard (try? Disk.remove(temporary)) != nil else { return }
            state.release(reservation.url)
        }
    }

    /// Deletes a cached file (e.g. it failed validation); no-op if absent. Pinned files too: the caller
    /// knows best. A file that cannot be deleted stays counted.
    public func remove(_ url: String) {
        let key = Self.key(for: url)
        state.withLock { state in _ = try? state.removeFile(key) }
    }

    /// The complete files in the cache now (paths), to check them again.
    public var storedFiles: [String] { state.withLock { state in state.entries.keys.sorted().map(state.path) } }

    /// Deletes a complete file by path (one of `storedFiles`); no-op if it is not the cache's.
    public func removeStored(_ path: String) {
        guard let key = path.split(separator: "/").last.map(String.init), path == directory + "/" + key else { return }
        state.withLock { state in _ = try? state.removeFile(key) }
    }

    /// Notes, durably, that the decoder is about to check `url`'s file at `path` (the final or the `.part`
    /// path): should the process die during the check, the next start deletes the file and reports the
    /// URL in `crashedDuringProbe`, so a file that crashes the decoder cannot crash every start.
    /// A file found at start has no known URL (nil): the marker then only gets the file deleted.
    public func beginProbe(_ url: String?, path: String) {
        Disk.writeFile(Self.probeMarker(for: path), contents: (url ?? "") + "\n")
    }

    /// The check begun by `beginProbe` is over, whatever its result.
    public func endProbe(path: String) {
        try? Disk.remove(Self.probeMarker(for: path))
    }

    private static func probeMarker(for path: String) -> String {
        (path.hasSuffix(CacheKey.partSuffix) ? String(path.dropLast(CacheKey.partSuffix.count)) : path) + CacheKey.probeSuffix
    }

    public var usage: CacheUsage {
        state.withLock { state in
            CacheUsage(
                storedBytes: state.storedBytes, reservedBytes: state.reservedBytes, files: state.entries.count,
                pinnedBytes: state.pinnedBytes)
        }
    }
}

/// Everything behind the cache's one lock. Invariant: `storedBytes + reservedBytes <= budget`, and the
/// files in the directory are exactly the entries plus at most `reservations[url]` bytes per `.part`.
private struct State {
    struct Entry {
        var bytes: Int64
        /// Larger is more recent.
        var lastUse: UInt64
    }

    let directory: String
    let budget: Int64
    /// Complete files, by cache key (the file name); the scan at start cannot know their URLs.
    var entries: [String: Entry] = [:]
    /// Reserved bytes of downloads in progress, by URL.
    var reservations: [String: Int64] = [:]
    /// Cache keys of pinned URLs.
    var pinned: Set<String> = []
    var storedBytes: Int64 = 0
    var reservedBytes: Int64 = 0
    private var clock: UInt64 = 0

    init(directory: String, budget: Int64) {
        self.directory = directory
        self.budget = budget
    }

    func path(_ key: String) -> String { directory + "/" + key }

    var pinnedBytes: Int64 { pinned.reduce(0) { $0 + (entries[$1]?.bytes ?? 0) } }

    /// Marks a file most recently used.
    mutating func touch(_ key: String) {
        clock += 1
        entries[key]?.lastUse = clock
    }

    /// Counts a complete file, as the most recently used.
    mutating func add(_ key: String, bytes: Int64) {
        forget(key)
        clock += 1
        entries[key] = Entry(bytes: bytes, lastUse: clock)
        storedBytes += bytes
    }

    /// Sets `url`'s reservation to `bytes` if that is more than it has, evicting LRU unpinned files to make
    /// room. Checks first that it can fit, so a request that cannot evicts nothing.
    mutating func reserve(_ url: String, bytes: Int64) throws(CacheError) {
        let current = reservations[url] ?? 0
        guard bytes > current || reservations[url] == nil else { return }
        let wanted = max(bytes, current)
        let others = reservedBytes - current
        let pinned = pinnedBytes
        guard wanted <= budget - pinned - others else {
            throw .noSpace(url: url, needed: wanted, budget: budget, pinned: pinned, reserved: others)
        }
        try evict(downTo: budget - (wanted - current))
        reservations[url] = wanted
        reservedBytes += wanted - current
    }

    mutating func release(_ url: String) {
        if let bytes = reservations.removeValue(forKey: url) { reservedBytes -= bytes }
    }

    /// Deletes unpinned complete files, least recently used first, until stored + reserved <= `limit`.
    mutating func evict(downTo limit: Int64) throws(CacheError) {
        guard storedBytes + reservedBytes > limit else { return }
        let candidates = entries.filter { !pinned.contains($0.key) }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, _) in candidates where storedBytes + reservedBytes > limit {
            try removeFile(key)
        }
    }

    /// Deletes a complete file and its entry; the entry stays if the file does (its bytes are still there).
    mutating func removeFile(_ key: String) throws(CacheError) {
        try Disk.remove(path(key))
        forget(key)
    }

    mutating func forget(_ key: String) {
        if let entry = entries.removeValue(forKey: key) { storedBytes -= entry.bytes }
    }

    /// Adopts complete files, oldest mtime least recently used; deletes `.part` files (no reservation
    /// survives a restart) and the file of any check that was interrupted (returning those URLs). Names the
    /// cache does not make are left alone. A directory without the marker is adopted only if nothing else
    /// is in it, so a folder of somebody's files is never counted, evicted or deleted from.
    mutating func scan() throws(CacheError) -> (owned: Bool, crashed: [String]) {
        // The whole listing before deleting, as readdir's view of a changing directory is unspecified.
        let names: [String]
        do { names = try directoryNames(directory) } catch { throw .io(path: directory, reason: "cannot list the cache directory: \(error)") }
        guard AudioCache.owns(names) else { return (false, []) }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: directory, reason: "cannot open the cache directory: \(Errno.current)") }
        defer { close(fd) }
        var crashed: [String] = []
        for name in names where CacheKey.isProbe(name) {
            let key = String(name.dropLast(CacheKey.probeSuffix.count))
            // A file found at start was probed without a URL (an empty line): it is only deleted.
            if let url = Disk.firstLine(of: path(name)), !url.isEmpty, ControlCharacters.first(in: url) == nil { crashed.append(url) }
            for victim in [key, key + CacheKey.partSuffix, name] where unlinkat(fd, victim, 0) != 0 && errno != ENOENT {
                throw .io(path: path(victim), reason: "cannot delete a file whose check was interrupted: \(Errno.current)")
            }
        }
        var found: [(key: String, bytes: Int64, modified: timespec)] = []
        for name in names {
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if CacheKey.isKey(name) {
                found.append((name, Int64(info.st_size), info.st_mtim))
            } else if CacheKey.isPart(name), unlinkat(fd, name, 0) != 0, errno != ENOENT {
                throw .io(path: path(name), reason: "cannot delete a partial download: \(Errno.current)")
            }
        }
        found.sort { ($0.modified.tv_sec, $0.modified.tv_nsec) < ($1.modified.tv_sec, $1.modified.tv_nsec) }
        for file in found { add(file.key, bytes: file.bytes) }
        return (true, crashed)
    }
}

/// The POSIX calls, with errno turned into text.
private enum Disk {
    /// Size of a regular file, nil if there is none.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Deletes a file; one that is already gone is fine.
    static func remove(_ path: String) throws(CacheError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .io(path: path, reason: "cannot delete: \(Errno.current)")
        }
    }

    /// Writes a small file durably (a marker); failures are ignored: a marker is a safety net, not a need.
    static func writeFile(_ path: String, contents: String) {
        guard let file = try? FileDescriptor.open(path, O_WRONLY | O_CREAT | O_TRUNC, permissions: 0o644) else { return }
        var contents = contents
        _ = contents.withUTF8 { try? file.writeAll(UnsafeRawBufferPointer($0)) }
        try? file.sync()
        file.close()
    }

    static func writeMarker(_ path: String) {
        guard access(path, F_OK) != 0 else { return }
        writeFile(path, contents: "This directory is Playola's download cache: files it did not name are left alone.\n")
    }

    /// The first line of a small file (at most 4 KiB read), nil if unreadable.
    static func firstLine(of path: String) -> String? {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { (try? file.read(into: $0)) ?? 0 }
        guard count > 0 else { return nil }
        let line = bytes[..<count].prefix { $0 != 10 }
        return String(validating: line, as: UTF8.self)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(CacheError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                throw .cannotCreate(directory: path, reason: "mkdir \(prefix): \(Errno.current)")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .cannotCreate(directory: path, reason: Errno.current.description) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .cannotCreate(directory: path, reason: "not a directory") }
    }
}
