
/// The access units of an MP4 track from its sample table: durations (`stts`), sizes (`stsz`), chunk offsets
/// (`stco`/`co64`) and how samples fill chunks (`stsc`).
///
/// Every count is checked against the bytes of its box and the size of the file before anything is sized
/// from it, and every loop is bounded by the units that fit in the file: a table that claims more is named
/// in a `MP4FieldError`. Units that lie beyond the end of the file end the table (a truncated download).
struct MP4SampleTable {
    var offsets: [Int64] = []
    var sizes: [UInt32] = []
    /// The usual duration of one unit and of the whole track, in the media timescale.
    var unitDuration: Int64
    var totalDuration: Int64
    /// Set when the table goes on past the end of the file: the number of units that are there.
    var firstMissingUnit: Int?

    /// `mayBeEmpty`: a fragmented file's `moov`, whose samples may all be in its fragments.
    init(stbl: MP4Box, in bytes: [UInt8], fileSize: Int64, mayBeEmpty: Bool = false) throws(MP4FieldError) {
        (unitDuration, totalDuration) = try Self.timeToSample(stbl: stbl, in: bytes)
        if unitDuration == 0 && !mayBeEmpty { throw MP4FieldError(field: "stts", problem: "no sample has a duration") }
        let sizes = try SampleSizes(stbl: stbl, in: bytes, fileSize: fileSize)
        let chunks = try Self.chunkOffsets(stbl: stbl, in: bytes)
        let runs = try Self.chunkRuns(stbl: stbl, in: bytes, chunkCount: chunks.count)
        offsets.reserveCapacity(sizes.count)
        self.sizes.reserveCapacity(sizes.count)
        try fill(runs: runs, chunks: chunks, sizes: sizes, fileSize: fileSize)
    }

    /// Adds the samples of a fragmented file's fragments, after those of the table.
    mutating func append(_ fragments: MP4Fragments) throws(MP4FieldError) {
        totalDuration = try totalDuration.addingDuration(fragments.duration, of: "trun")
        offsets += fragments.offsets
        sizes += fragments.sizes
        unitDuration = max(unitDuration, fragments.unitDuration)
        if fragments.isCut { firstMissingUnit = offsets.count }
    }

    /// Walks the chunks run by run, placing each unit after the previous one in its chunk.
    private mutating func fill(
        runs: [(firstChunk: Int, perChunk: Int)], chunks: [UInt64], sizes: SampleSizes, fileSize: Int64
    ) throws(MP4FieldError) {
        let count = sizes.count
        runLoop: for (runIndex, run) in runs.enumerated() {
            let lastChunk = runIndex + 1 < runs.count ? runs[runIndex + 1].firstChunk - 1 : chunks.count
            guard run.firstChunk <= lastChunk else { continue }
            for chunk in run.firstChunk...lastChunk {
                // Offsets are kept within [0, fileSize]: past it, the unit is missing and the table ends.
                var offset = Int64(clamping: min(chunks[chunk - 1], UInt64(fileSize) + 1))
                for _ in 0..<min(run.perChunk, count - offsets.count) {
                    let size = sizes[offsets.count]
                    guard offset <= fileSize, Int64(size) <= fileSize - offset else {
                        firstMissingUnit = offsets.count
                        break runLoop
                    }
                    offsets.append(offset)
                    self.sizes.append(size)
                    offset += Int64(size)
                }
                if offsets.count == count { break runLoop }
            }
        }
        guard offsets.count == count || firstMissingUnit != nil else {
            throw MP4FieldError(field: "stsc", problem: "chunks hold \(offsets.count) samples, stsz lists \(count)")
        }
    }

    /// The usual unit duration (the largest delta that repeats) and the sum of all.
    private static func timeToSample(stbl: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> (unit: Int64, total: Int64) {
        guard let stts = stbl.child("stts", in: bytes) else { throw MP4FieldError(field: "stts", problem: "missing") }
        var reader = ByteReader(bytes, from: stts.payloadStart + 4, to: stts.payloadEnd)
        let entries = try entryCount(&reader, entryBytes: 8, box: "stts")
        var unit: Int64 = 0
        var total: Int64 = 0
        for _ in 0..<entries {
            let count = Int64(reader.u32()!), delta = Int64(reader.u32()!)
            if unit == 0 || count > 1 { unit = max(unit, delta) }
            // Both are 32-bit: the product fits in 64 bits unsigned but not always signed, and sums overflow.
            let (duration, overflow) = count.multipliedReportingOverflow(by: delta)
            guard !overflow else { throw MP4FieldError.durationOverflow("stts") }
            total = try total.addingDuration(duration, of: "stts")
        }
        return (unit, total)
    }

    private static func chunkOffsets(stbl: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> [UInt64] {
        let wide = stbl.child("stco", in: bytes) == nil
        guard let box = stbl.child(wide ? "co64" : "stco", in: bytes) else {
            throw MP4FieldError(field: "stco", problem: "missing (and no co64)")
        }
        var reader = ByteReader(bytes, from: box.payloadStart + 4, to: box.payloadEnd)
        let count = try entryCount(&reader, entryBytes: wide ? 8 : 4, box: box.type)
        return (0..<count).map { _ in wide ? reader.u64()! : UInt64(reader.u32()!) }
    }

    /// The stsc entries, first chunks checked: from 1, strictly increasing, within the chunk table
    /// (which also keeps the walk over chunks linear).
    private static func chunkRuns(
        stbl: MP4Box, in bytes: [UInt8], chunkCount: Int
    ) throws(MP4FieldError) -> [(firstChunk: Int, perChunk: Int)] {
        guard let stsc = stbl.child("stsc", in: bytes) else { throw MP4FieldError(field: "stsc", problem: "missing") }
        var reader = ByteReader(bytes, from: stsc.payloadStart + 4, to: stsc.payloadEnd)
        let count = try entryCount(&reader, entryBytes: 12, box: "stsc")
        var runs: [(firstChunk: Int, perChunk: Int)] = []
        runs.reserveCapacity(count)
        for index in 0..<count {
            let first = Int(reader.u32()!), perChunk = Int(reader.u32()!)
            _ = reader.u32()
            guard first > (runs.last?.firstChunk ?? 0), first <= chunkCount else {
                throw MP4FieldError(field: "stsc", problem: "entry \(index) starts at chunk \(first): not after the previous entry's, or past the \(chunkCount) chunks of the chunk offset table")
            }
            runs.append((first, perChunk))
        }
        return runs
    }

    /// A table's entry count, checked against the bytes its box holds.
    static func entryCount(_ reader: inout ByteReader, entryBytes: Int, box: String) throws(MP4FieldError) -> Int {
        guard let count = reader.u32() else { throw MP4FieldError(field: box, problem: "cut short before its entry count") }
        guard Int(count) <= reader.remaining / entryBytes else {
            throw MP4FieldError(field: box, problem: "claims \(count) entries, its \(max(0, reader.remaining)) bytes hold \(max(0, reader.remaining) / entryBytes)")
        }
        return Int(count)
    }
}

/// `stsz`: one size for all samples, or a table of them (read in place, not copied).
private struct SampleSizes {
    let count: Int
    private let fixed: UInt32
    private let bytes: [UInt8]
    private let tableStart: Int

    init(stbl: MP4Box, in bytes: [UInt8], fileSize: Int64) throws(MP4FieldError) {
        guard let stsz = stbl.child("stsz", in: bytes) else { throw MP4FieldError(field: "stsz", problem: "missing") }
        var reader = ByteReader(bytes, from: stsz.payloadStart + 4, to: stsz.payloadEnd)
        guard let fixed = reader.u32() else { throw MP4FieldError(field: "stsz", problem: "cut short") }
        self.fixed = fixed
        self.bytes = bytes
        tableStart = reader.position + 4
        if fixed == 0 {
            count = try MP4SampleTable.entryCount(&reader, entryBytes: 4, box: "stsz")
        } else {
            guard let claimed = reader.u32() else { throw MP4FieldError(field: "stsz", problem: "cut short") }
            count = Int(claimed)
        }
        // Each unit takes at least one byte of the file.
        guard count <= DecodeLimits.maxUnits, Int64(count) <= fileSize else {
            throw MP4FieldError(field: "stsz", problem: "claims \(count) samples, more than a file of \(fileSize) bytes can hold (at most \(min(Int64(DecodeLimits.maxUnits), fileSize)))")
        }
        var largest = fixed
        if fixed == 0 {
            for index in 0..<count { largest = max(largest, self[index]) }
        }
        guard largest <= DecodeLimits.maxUnitBytes else {
            throw MP4FieldError(field: "stsz", problem: "a sample of \(largest) bytes, more than an AAC frame can be (\(DecodeLimits.maxUnitBytes))")
        }
    }

    subscript(index: Int) -> UInt32 {
        if fixed != 0 { return fixed }
        let at = tableStart + 4 * index
        return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}
