import Glibc

/// Reads the AAC audio track of an MP4/M4A file: the decoder config (`stsd`/`esds`), the sample table
/// (`stts`, `stsc`, `stsz`, `stco`/`co64`) and the priming and padding (edit list, else `iTunSMPB`, else
/// the customary 2112 samples). `moov` may come before or after `mdat`.
enum MP4AudioTrackReader {
    /// The priming assumed when the file says nothing (Apple's and most encoders' AAC-LC delay).
    static let defaultPriming: Int64 = 2112

    static func read(path: String) throws(AudioDecoderError) -> AACTrack {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        let top = MP4TopLevel.scan(fd: fd)
        guard let moov = top.boxes.first(where: { $0.type == "moov" }) else {
            throw .invalid(path: path, reason: "no moov box (the file is incomplete or not an MP4)")
        }
        guard moov.size < 64 << 20, moov.offset + moov.size <= top.fileSize else {
            throw .invalid(path: path, reason: "moov box of \(moov.size) bytes runs past the end of the file")
        }
        var bytes = [UInt8](repeating: 0, count: Int(moov.size))
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(moov.offset)) }
        guard got == bytes.count else { throw .invalid(path: path, reason: "cannot read moov box") }
        var track = try parse(moov: bytes, headerLength: moov.headerLength, path: path)
        track.firstMissingUnit = track.unitOffsets.indices.first {
            track.unitOffsets[$0] + Int64(track.unitSizes[$0]) > top.fileSize
        }
        return track
    }

    static func parse(moov bytes: [UInt8], headerLength: Int, path: String) throws(AudioDecoderError) -> AACTrack {
        let moov = MP4Box(type: "moov", payloadStart: headerLength, payloadEnd: bytes.count)
        func invalid(_ reason: String) -> AudioDecoderError { .invalid(path: path, reason: reason) }

        let movieTimescale = moov.child("mvhd", in: bytes).flatMap { timescale(ofHeader: $0, in: bytes) } ?? 1000
        let tracks = MP4Box.children(of: bytes, from: moov.payloadStart, to: moov.payloadEnd).filter { $0.type == "trak" }
        guard let trak = tracks.first(where: { handlerType(of: $0, in: bytes) == "soun" }) else {
            throw invalid("no audio track")
        }
        guard let mdhd = trak.descendant(["mdia", "mdhd"], in: bytes),
              let timescale = timescale(ofHeader: mdhd, in: bytes), timescale > 0 else {
            throw invalid("audio track has no media header")
        }
        guard let stbl = trak.descendant(["mdia", "minf", "stbl"], in: bytes) else { throw invalid("no sample table") }
        let config = try decoderConfig(stbl: stbl, in: bytes, path: path, invalid: invalid)
        let (unitDuration, totalDuration) = try timeToSample(stbl: stbl, in: bytes, invalid: invalid)
        let sizes = try sampleSizes(stbl: stbl, in: bytes, invalid: invalid)
        let offsets = try sampleOffsets(stbl: stbl, in: bytes, sizes: sizes, invalid: invalid)

        var priming = defaultPriming
        var valid: Int64? = max(0, totalDuration - priming)
        if let edit = editList(trak: trak, in: bytes) {
            priming = edit.mediaTime
            valid = edit.segmentDuration * timescale / movieTimescale
        } else if let smpb = iTunSMPB(moov: moov, in: bytes) {
            priming = smpb.priming
            valid = smpb.frames
        }
        return AACTrack(
            decoderConfig: config, unitOffsets: offsets, unitSizes: sizes, unitDuration: unitDuration,
            timescale: timescale, priming: priming, validDuration: valid, firstMissingUnit: nil)
    }

    private static func timescale(ofHeader box: MP4Box, in bytes: [UInt8]) -> Int64? {
        var reader = ByteReader(bytes, from: box.payloadStart, to: box.payloadEnd)
        guard let version = reader.u8(), reader.skip(3), reader.skip(version == 1 ? 16 : 8) else { return nil }
        return reader.u32().map(Int64.init)
    }

    private static func handlerType(of trak: MP4Box, in bytes: [UInt8]) -> String? {
        guard let hdlr = trak.descendant(["mdia", "hdlr"], in: bytes) else { return nil }
        var reader = ByteReader(bytes, from: hdlr.payloadStart, to: hdlr.payloadEnd)
        guard reader.skip(8) else { return nil }
        return reader.fourCC()
    }

    private static func decoderConfig(
        stbl: MP4Box, in bytes: [UInt8], path: String, invalid: (String) -> AudioDecoderError
    ) throws(AudioDecoderError) -> [UInt8] {
        guard let stsd = stbl.child("stsd", in: bytes),
              let entry = MP4Box.children(of: bytes, from: stsd.payloadStart + 8, to: stsd.payloadEnd).first
        else { throw invalid("no sample description") }
        guard entry.type == "mp4a" else {
            throw AudioDecoderError.unsupported(path: path, reason: "audio codec '\(entry.type)' (only AAC is supported in MP4)")
        }
        // AudioSampleEntry: 8 bytes of SampleEntry, then 20 bytes (v0); QuickTime v1/v2 entries add 16/36.
        var reader = ByteReader(bytes, from: entry.payloadStart + 8, to: entry.payloadEnd)
        let version = reader.u16() ?? 0
        let extra = version == 1 ? 16 : version == 2 ? 36 : 0
        guard let esds = MP4Box.children(of: bytes, from: entry.payloadStart + 28 + extra, to: entry.payloadEnd)
            .first(where: { $0.type == "esds" }) ?? findBox("esds", in: bytes, from: entry.payloadStart, to: entry.payloadEnd)
        else { throw invalid("mp4a entry has no esds box") }
        guard let config = audioSpecificConfig(esds: esds, in: bytes) else {
            throw invalid("esds box has no AAC decoder configuration")
        }
        return config
    }

    /// Some writers wrap esds in a `wave` box; look for it at any depth.
    private static func findBox(_ type: String, in bytes: [UInt8], from start: Int, to end: Int) -> MP4Box? {
        var position = start
        while position + 8 <= end {
            var reader = ByteReader(bytes, from: position + 4, to: end)
            if reader.fourCC() == type {
                var sizeReader = ByteReader(bytes, from: position, to: end)
                if let size = sizeReader.u32(), Int(size) >= 8, position + Int(size) <= end {
                    return MP4Box(type: type, payloadStart: position + 8, payloadEnd: position + Int(size))
                }
            }
            position += 1
        }
        return nil
    }

    /// ES_Descriptor (tag 3) → DecoderConfigDescriptor (tag 4) → DecoderSpecificInfo (tag 5).
    private static func audioSpecificConfig(esds: MP4Box, in bytes: [UInt8]) -> [UInt8]? {
        var reader = ByteReader(bytes, from: esds.payloadStart + 4, to: esds.payloadEnd)
        func descriptor() -> (tag: UInt8, length: Int)? {
            guard let tag = reader.u8() else { return nil }
            var length = 0
            for _ in 0..<4 {
                guard let byte = reader.u8() else { return nil }
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return (tag, length)
        }
        guard let es = descriptor(), es.tag == 3, reader.skip(2), let flags = reader.u8() else { return nil }
        if flags & 0x80 != 0 { guard reader.skip(2) else { return nil } }
        if flags & 0x40 != 0 { guard let urlLength = reader.u8(), reader.skip(Int(urlLength)) else { return nil } }
        if flags & 0x20 != 0 { guard reader.skip(2) else { return nil } }
        guard let config = descriptor(), config.tag == 4, reader.skip(13),
              let specific = descriptor(), specific.tag == 5, specific.length > 0, reader.remaining >= specific.length
        else { return nil }
        return Array(bytes[reader.position..<reader.position + specific.length])
    }

    private static func timeToSample(
        stbl: MP4Box, in bytes: [UInt8], invalid: (String) -> AudioDecoderError
    ) throws(AudioDecoderError) -> (unit: Int64, total: Int64) {
        guard let stts = stbl.child("stts", in: bytes) else { throw invalid("no stts box") }
        var reader = ByteReader(bytes, from: stts.payloadStart + 4, to: stts.payloadEnd)
        guard let entries = reader.u32() else { throw invalid("stts box is cut short") }
        var unit: Int64 = 0
        var total: Int64 = 0
        for _ in 0..<entries {
            guard let count = reader.u32(), let delta = reader.u32() else { throw invalid("stts box is cut short") }
            if unit == 0 || count > 1 { unit = max(unit, Int64(delta)) }
            total += Int64(count) * Int64(delta)
        }
        guard unit > 0 else { throw invalid("stts box has no samples") }
        return (unit, total)
    }

    private static func sampleSizes(
        stbl: MP4Box, in bytes: [UInt8], invalid: (String) -> AudioDecoderError
    ) throws(AudioDecoderError) -> [UInt32] {
        guard let stsz = stbl.child("stsz", in: bytes) else { throw invalid("no stsz box") }
        var reader = ByteReader(bytes, from: stsz.payloadStart + 4, to: stsz.payloadEnd)
        guard let fixed = reader.u32(), let count = reader.u32() else { throw invalid("stsz box is cut short") }
        if fixed != 0 { return [UInt32](repeating: fixed, count: Int(count)) }
        guard reader.remaining >= Int(count) * 4 else { throw invalid("stsz box is cut short") }
        return (0..<Int(count)).map { _ in reader.u32()! }
    }

    private static func sampleOffsets(
        stbl: MP4Box, in bytes: [UInt8], sizes: [UInt32], invalid: (String) -> AudioDecoderError
    ) throws(AudioDecoderError) -> [Int64] {
        let count = sizes.count
        var chunkOffsets: [Int64] = []
        if let stco = stbl.child("stco", in: bytes) {
            var reader = ByteReader(bytes, from: stco.payloadStart + 4, to: stco.payloadEnd)
            let n = Int(reader.u32() ?? 0)
            guard reader.remaining >= n * 4 else { throw invalid("stco box is cut short") }
            chunkOffsets = (0..<n).map { _ in Int64(reader.u32()!) }
        } else if let co64 = stbl.child("co64", in: bytes) {
            var reader = ByteReader(bytes, from: co64.payloadStart + 4, to: co64.payloadEnd)
            let n = Int(reader.u32() ?? 0)
            guard reader.remaining >= n * 8 else { throw invalid("co64 box is cut short") }
            chunkOffsets = (0..<n).map { _ in Int64(bitPattern: reader.u64()!) }
        } else {
            throw invalid("no stco or co64 box")
        }
        guard let stsc = stbl.child("stsc", in: bytes) else { throw invalid("no stsc box") }
        var reader = ByteReader(bytes, from: stsc.payloadStart + 4, to: stsc.payloadEnd)
        let n = Int(reader.u32() ?? 0)
        guard reader.remaining >= n * 12 else { throw invalid("stsc box is cut short") }
        let runs: [(firstChunk: Int, perChunk: Int)] = (0..<n).map { _ in
            let first = Int(reader.u32()!)
            let perChunk = Int(reader.u32()!)
            _ = reader.u32()
            return (first, perChunk)
        }
        var offsets: [Int64] = []
        offsets.reserveCapacity(count)
        for (runIndex, run) in runs.enumerated() {
            let lastChunk = runIndex + 1 < runs.count ? runs[runIndex + 1].firstChunk - 1 : chunkOffsets.count
            guard run.firstChunk >= 1, lastChunk <= chunkOffsets.count else { throw invalid("stsc names a chunk stco lacks") }
            for chunk in run.firstChunk...max(run.firstChunk, lastChunk) where chunk <= lastChunk {
                var offset = chunkOffsets[chunk - 1]
                for _ in 0..<run.perChunk where offsets.count < count {
                    offsets.append(offset)
                    offset += Int64(sizes[offsets.count - 1])
                }
            }
        }
        guard offsets.count == count else { throw invalid("sample table lists \(count) samples but chunks hold \(offsets.count)") }
        return offsets
    }

    private static func editList(trak: MP4Box, in bytes: [UInt8]) -> (mediaTime: Int64, segmentDuration: Int64)? {
        guard let elst = trak.descendant(["edts", "elst"], in: bytes) else { return nil }
        var reader = ByteReader(bytes, from: elst.payloadStart, to: elst.payloadEnd)
        guard let version = reader.u8(), reader.skip(3), let count = reader.u32() else { return nil }
        for _ in 0..<count {
            let duration = version == 1 ? reader.u64().map { Int64(bitPattern: $0) } : reader.u32().map { Int64($0) }
            let time = version == 1 ? reader.u64().map { Int64(bitPattern: $0) } : reader.u32().map { Int64(Int32(bitPattern: $0)) }
            guard let duration, let time, reader.skip(4) else { return nil }
            if time >= 0 { return (time, duration) } // an empty edit (-1) delays the track; we play from its start
        }
        return nil
    }

    /// iTunes gapless info: ` 00000000 PRIMING PADDING TOTAL …` in hex, in a `----` item named iTunSMPB.
    private static func iTunSMPB(moov: MP4Box, in bytes: [UInt8]) -> (priming: Int64, frames: Int64)? {
        guard let udta = moov.child("udta", in: bytes), let meta = udta.child("meta", in: bytes),
              let ilst = meta.child("ilst", in: bytes, skip: 4) else { return nil }
        for item in MP4Box.children(of: bytes, from: ilst.payloadStart, to: ilst.payloadEnd) where item.type == "----" {
            let parts = MP4Box.children(of: bytes, from: item.payloadStart, to: item.payloadEnd)
            guard let name = parts.first(where: { $0.type == "name" }),
                  String(decoding: bytes[name.payloadStart + 4..<name.payloadEnd], as: UTF8.self) == "iTunSMPB",
                  let data = parts.first(where: { $0.type == "data" }), data.payloadEnd - data.payloadStart > 8
            else { continue }
            let text = String(decoding: bytes[data.payloadStart + 8..<data.payloadEnd], as: UTF8.self)
            let fields = text.split(separator: " ").compactMap { Int64($0, radix: 16) }
            guard fields.count >= 4 else { return nil }
            return (fields[1], fields[3])
        }
        return nil
    }
}
