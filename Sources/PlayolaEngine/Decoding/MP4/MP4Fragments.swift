import PlayolaSupport

/// The samples a fragmented MP4 file keeps in its movie fragments (`moof` boxes after `moov`, as ffmpeg's
/// `-movflags frag_keyframe+empty_moov` or `-frag_duration` write them), after any in `moov`'s own table.
struct MP4Fragments {
    var offsets: [Int64] = []
    var sizes: [UInt32] = []
    var duration: Int64 = 0
    var unitDuration: Int64 = 0
    /// A sample lies past the end of the file: the file is cut short there.
    var isCut = false
    /// The file's bytes that no sample has taken yet.
    private var untakenBytes: Int

    /// A `moof` holds one fragment's sample index: a few KB, never this much.
    static let maxMoofBytes = 4 << 20

    /// Reads every top-level `moof` of the file for the track `trackID`.
    init(file: FileDescriptor, fileSize: Int64, trackID: UInt32, defaults: MP4TrackRun.Defaults) throws(MP4FieldError) {
        untakenBytes = Int(fileSize)
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        while fileSize - offset >= 8 {
            let got = header.withUnsafeMutableBytes { (try? file.read(into: $0, at: offset)) ?? -1 }
            guard got >= 8 else { break }
            var reader = ByteReader(Array(header[0..<got]))
            guard let size32 = reader.u32(), let type = reader.fourCC() else { break }
            var size = Int64(size32)
            if size32 == 1 {
                guard let large = reader.u64() else { break }
                size = Int64(clamping: large)
            } else if size32 == 0 {
                size = fileSize - offset
            }
            guard size >= Int64(reader.position) else {
                throw MP4FieldError(field: "'\(type)' box at byte \(offset)", problem: "size \(size) is smaller than its header")
            }
            if type == "moof" {
                guard size <= Int64(Self.maxMoofBytes), size <= fileSize - offset else {
                    throw MP4FieldError(field: "moof at byte \(offset)", problem: "\(size) bytes, more than a fragment's index needs or the file holds")
                }
                try read(moofAt: offset, size: Int(size), headerLength: reader.position, file: file, fileSize: fileSize, trackID: trackID, defaults: defaults)
                if isCut { return }
            }
            guard size <= fileSize - offset else { break }
            offset += size
        }
    }

    private mutating func read(
        moofAt offset: Int64, size: Int, headerLength: Int, file: FileDescriptor, fileSize: Int64, trackID: UInt32, defaults: MP4TrackRun.Defaults
    ) throws(MP4FieldError) {
        var bytes = [UInt8](repeating: 0, count: size)
        let got = bytes.withUnsafeMutableBytes { (try? file.read(into: $0, at: offset)) ?? -1 }
        guard got == size else { throw MP4FieldError(field: "moof at byte \(offset)", problem: "cannot be read") }
        var budget = MP4FragmentBudget(bytes: untakenBytes, of: Int(fileSize))
        defer { untakenBytes = budget.bytes }
        for traf in MP4Box.children(of: bytes, from: headerLength, to: size) where traf.type == "traf" {
            guard let run = try MP4TrackRun(traf: traf, moofStart: Int(offset), trackID: trackID, defaults: defaults,
                                            dataEnd: Int(fileSize), budget: &budget, in: bytes) else { continue }
            guard run.samples.count <= DecodeLimits.maxUnits - offsets.count else {
                throw MP4FieldError(field: "moof at byte \(offset)", problem: "the fragments hold more than the \(DecodeLimits.maxUnits) samples a track may have")
            }
            for sample in run.samples {
                guard UInt32(clamping: sample.size) <= DecodeLimits.maxUnitBytes else {
                    throw MP4FieldError(field: "trun", problem: "a sample of \(sample.size) bytes, more than an AAC frame can be (\(DecodeLimits.maxUnitBytes))")
                }
                offsets.append(Int64(sample.offset))
                sizes.append(UInt32(sample.size))
            }
            duration = try duration.addingDuration(run.duration, of: "trun")
            unitDuration = max(unitDuration, run.unitDuration)
            if run.isCut { isCut = true }
        }
    }
}
