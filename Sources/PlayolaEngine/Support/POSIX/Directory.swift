import Glibc

/// The names in a directory, without `.` and `..` (names that are not UTF-8 as replaced text).
package func directoryNames(_ path: String) throws(Errno) -> [String] {
    guard let directory = opendir(path) else { throw .current }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != ".", name != ".." { names.append(name) }
    }
    return names
}

/// Makes a file's bytes, or (with O_DIRECTORY) a directory's renames and unlinks, durable.
package func syncToDisk(_ path: String, _ flags: Int32 = 0) throws(Errno) {
    let file = try FileDescriptor.open(path, O_RDONLY | flags)
    defer { file.close() }
    try file.sync()
}
