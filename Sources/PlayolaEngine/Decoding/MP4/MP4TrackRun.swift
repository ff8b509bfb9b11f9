/// The samples of one track fragment (`traf`: `tfhd` and its `trun`s): where each lies and how long it is.
/// Data positions are in the coordinates of `moofStart` (a segment's bytes, or a file's offsets), so the
/// same reading serves HLS segments in memory and fragmented files read box by box.
struct MP4TrackRun {
    var samples: [(offset: Int, size: Int)] = []
    /// The fragment's duration in the media timescale.
    var duration: Int64 = 0
    /// The longest sample duration: a unit's (only the last is shorter).
    var unitDuration: Int64 = 0
    /// A sample lies (partly) past the end of the data: a truncated file. The samples' durations still
    /// count, as a sample table's would, so that playing reaches the cut and names it.
    var isCut = false

    /// `trex`: what a fragment's samples are when neither `tfhd` nor `trun` says.
    struct Defaults {
        var duration: UInt32 = 0
        var size: UInt32?

        init(moov: MP4Box, trackID: UInt32, in bytes: [UInt8]) {
            guard let mvex = moov.child("mvex", in: bytes) else { return }
            for trex in MP4Box.children(of: bytes, from: mvex.payloadStart, to: mvex.payloadEnd) where trex.type == "trex" {
                var reader = ByteReader(bytes, from: trex.payloadStart + 4, to: trex.payloadEnd)
                guard reader.u32() == trackID, reader.skip(4), let duration = reader.u32(), let size = reader.u32() else { continue }
                self.duration = duration
                self.size = size == 0 ? nil : size
            }
        }
    }

    /// Nil when the fragment is of another track or its boxes are cut short. A run that claims more samples
    /// than its box describes is cut to those described, and the samples end where one would run past
    /// `dataEnd` (the segment's or the file's size) or has no bytes: nothing is sized by a count unchecked.
    /// Runs, samples and their bytes are taken from `budget`; a fragment that claims more is named.
    init?(
        traf: MP4Box, moofStart: Int, trackID: UInt32, defaults: Defaults, dataEnd: Int, budget: inout MP4FragmentBudget, in bytes: [UInt8]
    ) throws(MP4FieldError) {
        guard let tfhd = traf.child("tfhd", in: bytes) else { return nil }
        var reader = ByteReader(bytes, from: tfhd.payloadStart, to: tfhd.payloadEnd)
        guard let flags = reader.u32().map({ $0 & 0xFF_FFFF }), let id = reader.u32(), id == trackID else { return nil }
        var base = moofStart
        if flags & 0x1 != 0 {
            guard let offset = reader.u64(), offset <= UInt64(Int32.max) << 16 else { return nil }
            base = Int(offset)
        }
        if flags & 0x2 != 0 { guard reader.skip(4) else { return nil } }
        var defaultDuration = defaults.duration
        if flags & 0x8 != 0 { guard let value = reader.u32() else { return nil }; defaultDuration = value }
        var defaultSize = defaults.size
        if flags & 0x10 != 0 { guard let value = reader.u32() else { return nil }; defaultSize = value }
        var next = base
        for trun in MP4Box.children(of: bytes, from: traf.payloadStart, to: traf.payloadEnd) where trun.type == "trun" {
            try budget.takeRun()
            var reader = ByteReader(bytes, from: trun.payloadStart, to: trun.payloadEnd)
            guard let runFlags = reader.u32().map({ $0 & 0xFF_FFFF }), let count = reader.u32() else { return nil }
            var at = next
            if runFlags & 0x1 != 0 {
                guard let offset = reader.u32() else { return nil }
                at = base + Int(Int32(bitPattern: offset))
            }
            if runFlags & 0x4 != 0 { guard reader.skip(4) else { return nil } }
            let fields = [0x100, 0x200, 0x400, 0x800].filter { runFlags & UInt32($0) != 0 }
            let described = fields.isEmpty ? Int(count) : min(Int(count), reader.remaining / (4 * fields.count))
            try budget.takeSamples(described)
            for _ in 0..<described {
                var size = defaultSize.map(Int.init)
                var duration = defaultDuration
                for field in fields {
                    guard let value = reader.u32() else { return nil }
                    if field == 0x100 { duration = value }
                    if field == 0x200 { size = Int(value) }
                }
                guard let size else { return nil }
                // At most maxFragmentSamples durations of 32 bits: far from Int64's limit.
                self.duration += Int64(duration)
                unitDuration = max(unitDuration, Int64(duration))
                guard !isCut, size > 0, at >= 0, size <= dataEnd - at else {
                    isCut = true
                    continue
                }
                try budget.takeBytes(size)
                samples.append((at, size))
                at += size
            }
            next = at
        }
    }
}
