import Glibc
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
/// and a file is deleted before its space is given back. Only this cache may write to the directory; a
/// stray file is deleted at the next start.
public final class AudioCache: Sendable {
    public let directory: String
    public let budgetBytes: Int64
    private let state: Mutex<State>

    /// Creates `directory` if needed and scans it: complete files are kept (least recently used is the
    /// oldest mtime), partial downloads and anything else are deleted, then LRU files are evicted down to
    /// the budget.
    public init(directory: String, budgetBytes: Int64) throws(CacheError) {
        var trimmed = directory
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.directory = trimmed
        self.budgetBytes = budgetBytes
        try Disk.makeDirectories(trimmed)
        var state = State(directory: trimmed, budget: budgetBytes)
        try state.scan()
        try state.evict(downTo: budgetBytes)
        self.state = Mutex(state)
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
                throw .io(path: temporary, reason: "cannot commit: \(Disk.lastError)")
            }
            try state.reserve(url, bytes: size)
            try Disk.sync(temporary)
            let final = state.path(key)
            guard rename(temporary, final) == 0 else {
                throw .io(path: temporary, reason: "cannot rename to \(final): \(Disk.lastError)")
            }
            // Without this a crash may undo the rename; the scan then deletes the `.part`, which is safe.
            Disk.syncDirectory(state.directory)
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
    /// survives a restart) and anything else. Subdirectories are left alone: they are not ours to recurse into.
    mutating func scan() throws(CacheError) {
        guard let dir = opendir(directory) else {
            throw .io(path: directory, reason: "cannot list the cache directory: \(Disk.lastError)")
        }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        // Read the whole listing before deleting, as readdir's view of a changing directory is unspecified.
        var names: [[CChar]] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { Array($0.bindMemory(to: CChar.self).prefix { $0 != 0 }) }
            if name != [46] && name != [46, 46] { names.append(name + [0]) }
        }
        var found: [(key: String, bytes: Int64, modified: timespec)] = []
        for name in names {
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT != S_IFDIR else { continue }
            let text = String(validating: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let text, info.st_mode & S_IFMT == S_IFREG, CacheKey.isKey(text) {
                found.append((text, Int64(info.st_size), info.st_mtim))
            } else if unlinkat(fd, name, 0) != 0, errno != ENOENT {
                throw .io(path: directory + "/" + (text ?? "?"), reason: "cannot delete stray file: \(Disk.lastError)")
            }
        }
        found.sort { ($0.modified.tv_sec, $0.modified.tv_nsec) < ($1.modified.tv_sec, $1.modified.tv_nsec) }
        for file in found { add(file.key, bytes: file.bytes) }
    }
}

/// The POSIX calls, with errno turned into text.
private enum Disk {
    static var lastError: String { String(cString: strerror(errno)) }

    /// Size of a regular file, nil if there is none.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Deletes a file; one that is already gone is fine.
    static func remove(_ path: String) throws(CacheError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .io(path: path, reason: "cannot delete: \(lastError)")
        }
    }

    static func sync(_ path: String) throws(CacheError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, reason: "cannot open to sync: \(lastError)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io(path: path, reason: "fsync failed: \(lastError)") }
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(CacheError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            guard mkdir(prefix, 0o755) == 0 || errno == EEXIST else {
                throw .cannotCreate(directory: path, reason: "mkdir \(prefix): \(lastError)")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .cannotCreate(directory: path, reason: lastError) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .cannotCreate(directory: path, reason: "not a directory") }
    }
}
