import PlayolaSupport

/// A track's access units read through one window of its file: units lie one after another (an MP4 chunk, an
/// ADTS run), so a window of them costs one `pread` where a read per unit cost 43 a second at 44.1 kHz, each a
/// system call on the decode thread (bench/PROFILE.md, issue 31).
struct UnitWindow {
    /// The window's bytes, then `padding` zeros: faad's bit reader looks a few bytes past a unit's end.
    /// Settable only because faad's decode takes a mutable pointer; it writes nothing there.
    var bytes: [UInt8]
    /// The file offset of `bytes[0]`, and how many bytes from there were read.
    private var start: Int64 = 0
    private var count = 0
    private let capacity: Int
    static let padding = 16
    /// Enough for ~1.5 s of 192 kbit/s AAC, and never less than the track's largest unit.
    static let preferredBytes = 32 << 10

    init(largestUnit: Int) {
        capacity = max(Self.preferredBytes, largestUnit)
        bytes = [UInt8](repeating: 0, count: capacity + Self.padding)
    }

    /// Where in `bytes` the `size` bytes at file offset `offset` are, reading a new window starting there when
    /// they are not all in this one; nil if the file ends (or fails) before them.
    mutating func locate(offset: Int64, size: Int, in file: FileDescriptor) -> Int? {
        guard size <= capacity, offset >= 0 else { return nil }
        if offset >= start, offset - start + Int64(size) <= Int64(count) { return Int(offset - start) }
        let capacity = capacity
        let got = bytes.withUnsafeMutableBytes { try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<capacity]), at: offset) } ?? 0
        start = offset
        count = got
        // What the last window left past this one's end must not pass for padding.
        bytes.withUnsafeMutableBufferPointer { $0[got..<got + Self.padding].update(repeating: 0) }
        return got >= size ? 0 : nil
    }
}
