import Glibc
import PlayolaEngine

/// Which INI the appliance reads: the one answer shared by `playola run`, `check-config` and the clients,
/// so they never disagree about the socket or the stations.
package enum ConfigLocation {
    /// The boot partition's copy first: on a Pi it is on the FAT partition that its owner edits from any
    /// computer. A system without one (the package alone) reads the package's file.
    static let standardSearch = ["/boot/firmware/playola.ini", "/etc/playola.ini"]
    /// Test seam: a `:`-separated list that replaces `standardSearch`, so tests run without touching the
    /// machine's files.
    static let searchVariable = "PLAYOLA_CONFIG_SEARCH"

    package struct Resolution {
        package var path: String
        /// Files earlier in the search that may exist but could not be looked at, each with the reason:
        /// worth a warning, since the file read is then not the one the user edited.
        package var unreachable: [(path: String, reason: String)] = []
    }

    /// `--config FILE` when given; else the first file of the search that exists; else the last of the
    /// search (whose absence the reader then reports).
    package static func resolve(explicit: String?) -> Resolution {
        if let explicit { return Resolution(path: explicit) }
        var resolution = Resolution(path: search.last ?? "/etc/playola.ini")
        for path in search {
            var info = stat()
            if stat(path, &info) == 0 {
                resolution.path = path
                return resolution
            }
            if errno != ENOENT && errno != ENOTDIR {
                resolution.unreachable.append((path, Errno.current.description))
            }
        }
        return resolution
    }

    static var search: [String] {
        guard let value = getenv(searchVariable) else { return standardSearch }
        let paths = String(cString: value).split(separator: ":").map(String.init)
        return paths.isEmpty ? standardSearch : paths
    }

    /// For help texts.
    package static var searchDescription: String { standardSearch.joined(separator: ", else ") }
}
