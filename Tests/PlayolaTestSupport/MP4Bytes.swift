/// An MP4 file's bytes with its boxes found by path, to make hostile variants of real fixtures: a field
/// overwritten, a box renamed or replaced. Edits stay inside `moov`, so they are only faithful for files whose
/// `moov` comes last (ffmpeg's default), where no chunk offset points past an edit.
package struct MP4Bytes {
    package var bytes: [UInt8]
    /// Boxes whose payload is boxes; `meta` has 4 bytes of version and flags first.
    private static let containers: [String: Int] = [
        "moov": 0, "trak": 0, "mdia": 0, "minf": 0, "stbl": 0, "edts": 0, "udta": 0, "meta": 4, "ilst": 0, "moof": 0, "traf": 0,
    ]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Where the box at `path` starts (its size field), e.g. `["moov", "trak", "mdia", "minf", "stbl", "stsc"]`.
    package func offset(of path: [String]) -> Int? {
        chain(path)?.last
    }

    /// The start of every box along `path`.
    private func chain(_ path: [String]) -> [Int]? {
        var starts: [Int] = []
        var (start, end) = (0, bytes.count)
        for type in path {
            var at = start
            var found: Int?
            while at + 8 <= end {
                let size = Int(u32(at: at))
                if fourCC(at: at + 4) == type { found = at; break }
                guard size >= 8 else { return nil }
                at += size
            }
            guard let box = found else { return nil }
            starts.append(box)
            start = box + 8 + (Self.containers[type] ?? 0)
            end = box + Int(u32(at: box))
        }
        return starts
    }

    /// The offset of field `index` (counting 32-bit words) after the box's 8-byte header.
    package func field(_ path: [String], word index: Int) -> Int { offset(of: path)! + 8 + 4 * index }

    package func u32(at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    package mutating func set(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }

    package mutating func set(_ path: [String], word index: Int, to value: UInt32) { set(value, at: field(path, word: index)) }

    func fourCC(at offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }

    package mutating func rename(_ path: [String], to type: String) {
        bytes.replaceSubrange(offset(of: path)! + 4..<offset(of: path)! + 8, with: Array(type.utf8))
    }

    /// Replaces the box at `path` (or, if there is none, appends to its parent) with `box`, fixing the sizes
    /// of the boxes that contain it.
    package mutating func replace(_ path: [String], with box: [UInt8]) {
        let parents = chain(Array(path.dropLast()))!
        let old = offset(of: path).map { ($0, Int(u32(at: $0))) }
            ?? (parents.last! + Int(u32(at: parents.last!)), 0)
        bytes.replaceSubrange(old.0..<old.0 + old.1, with: box)
        for parent in parents { set(u32(at: parent) + UInt32(box.count) - UInt32(old.1), at: parent) }
    }

    /// Splits the samples of the track's sample table (`stbl` at `table`) into chunks of `perChunk` (the last
    /// takes the rest), as longer files have: new `stco` and `stsc`, the samples where they were.
    package mutating func rechunk(_ table: [String], perChunk: Int) {
        let sizesAt = field(table + ["stsz"], word: 3)
        let count = Int(u32(at: field(table + ["stsz"], word: 2)))
        var offset = u32(at: field(table + ["stco"], word: 2))
        var chunkOffsets: [UInt32] = []
        for index in 0..<count {
            if index % perChunk == 0 { chunkOffsets.append(offset) }
            offset += u32(at: sizesAt + 4 * index)
        }
        var runs: [[UInt32]] = [[1, UInt32(perChunk), 1]]
        if count % perChunk != 0 { runs.append([UInt32(chunkOffsets.count), UInt32(count % perChunk), 1]) }
        replace(table + ["stco"], with: Self.box("stco", Self.words([0, UInt32(chunkOffsets.count)] + chunkOffsets)))
        replace(table + ["stsc"], with: Self.box("stsc", Self.words([0, UInt32(runs.count)] + runs.flatMap { $0 })))
    }

    package static func words(_ values: [UInt32]) -> [UInt8] {
        values.flatMap { value in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    }

    /// A box of `type` around `payload`.
    package static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        words([UInt32(8 + payload.count)]) + Array(type.utf8) + payload
    }

    /// iTunes' gapless item `udta/meta/ilst/----` with `mean`, `name` and `data`. The payloads of `name` and
    /// `data` are whole (version, flags and locale included), so that tests can cut them short.
    package static func iTunSMPB(name: [UInt8] = [0, 0, 0, 0] + Array("iTunSMPB".utf8), data: [UInt8]) -> [UInt8] {
        let item = box("----", box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8)) + box("name", name) + box("data", data))
        let handler = box("hdlr", [UInt8](repeating: 0, count: 8) + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
        return box("udta", box("meta", [0, 0, 0, 0] + handler + box("ilst", item)))
    }

    /// An iTunSMPB `data` payload holding `text`.
    package static func smpbData(_ text: String) -> [UInt8] { [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8) }
}
