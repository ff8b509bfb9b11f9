import Glibc

/// Runs a target over corpus files (or every file of corpus folders): the kept corpus is a regression test.
public enum CorpusReplay {
    /// The files `paths` names, folders expanded one level, sorted.
    public static func files(_ paths: [String]) -> [String] {
        var files: [String] = []
        for path in paths {
            guard let folder = opendir(path) else {
                files.append(path)
                continue
            }
            defer { closedir(folder) }
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if !name.hasPrefix(".") { files.append(path + "/" + name) }
            }
        }
        return files.sorted()
    }

    /// The bytes of `path`, or nil if it cannot be read.
    public static func contents(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got >= 0 else { return nil }
            if got == 0 { return bytes }
            bytes += chunk[0..<got]
        }
    }

    /// Replays each file through `target`; returns the number replayed.
    @discardableResult
    public static func run(_ target: FuzzTarget, paths: [String]) -> Int {
        var count = 0
        for file in files(paths) {
            guard let bytes = contents(file) else { continue }
            bytes.withUnsafeBytes { target.run($0) }
            count += 1
        }
        return count
    }
}
