/// Why the download cache could not do what was asked; every case names the path or the byte counts.
public enum CacheError: Error, Equatable, CustomStringConvertible {
    case cannotCreate(directory: String, reason: String)
    /// `url` needs `needed` bytes in all, but `budget` minus what `pinned` files and the other downloads
    /// in progress (`reserved`) hold leaves less than that, even after evicting every unpinned file.
    case noSpace(url: String, needed: Int64, budget: Int64, pinned: Int64, reserved: Int64)
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotCreate(let directory, let reason):
            "\(directory): cannot create the cache directory: \(reason)"
        case .noSpace(let url, let needed, let budget, let pinned, let reserved):
            "cache budget of \(budget) bytes is too small: \(url) needs \(needed), pinned files hold \(pinned)"
                + " and downloads in progress \(reserved)"
        case .io(let path, let reason):
            "\(path): \(reason)"
        }
    }
}
