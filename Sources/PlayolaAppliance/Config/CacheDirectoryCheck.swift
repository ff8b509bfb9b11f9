import Glibc
import PlayolaEngine

/// Where the download cache may live. It evicts and deletes files in its directory, so it must not share
/// the state directory (the token, the last station) or take over a folder of someone's files.
enum CacheDirectoryCheck {
    /// Why `cache` cannot be the cache directory next to the state directory `state`; nil when it can.
    static func problem(cache: String, state: String) -> String? {
        let (cacheDir, stateDir) = (canonical(cache), canonical(state))
        if cacheDir == stateDir {
            return "cache dir \(cache) is the state directory: give the cache a directory of its own"
        }
        if isInside(cacheDir, stateDir) {
            return "cache dir \(cache) is inside the state directory \(state): give the cache a directory of its own"
        }
        if isInside(stateDir, cacheDir) {
            return "cache dir \(cache) contains the state directory \(state): give the cache a directory of its own"
        }
        switch AudioCache.mayUse(cache) {
        case .success(true): return nil
        case .success(false):
            return "cache dir \(cache) holds files the cache did not make (no \(AudioCache.markerName) in it): "
                + "give the cache an empty directory of its own"
        case .failure(let error): return "cache dir: \(error)"
        }
    }

    static func isInside(_ path: String, _ folder: String) -> Bool {
        folder == "/" ? path != "/" : path.hasPrefix(folder + "/")
    }

    /// The path with symbolic links resolved where it exists, and `.`, `..` and repeated `/` removed.
    static func canonical(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }
}
