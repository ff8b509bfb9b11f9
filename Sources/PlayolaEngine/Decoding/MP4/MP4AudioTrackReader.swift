import Glibc

/// Reads the AAC audio track of an MP4/M4A file: the decoder config (`stsd`/`esds`), the sample table
/// (`stts`, `stsc`, `stsz`, `stco`/`co64`) and the priming and padding (edit list, else `iTunSMPB`, else
/// the customary 2112 samples). `moov` may come before or after `mdat`.
enum MP4AudioTrackReader {
    /// More than any real audio track's index needs (an hour of AAC has a few hundred KB of `moov`).
    static let maxMoovBytes: Int64 = 16 << 20

    static func read(path: String) throws(AudioDecoderError) -> AACTrack {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var stats = stat()
        guard fstat(fd, &stats) == 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        let fileSize = Int64(stats.st_size)
        do throws(MP4FieldError) {
            guard let moov = try MP4TopLevelBox.find("moov", fd: fd, fileSize: fileSize) else {
                throw MP4FieldError(field: "moov", problem: "missing (the file is incomplete or not an MP4)")
            }
            guard moov.size <= fileSize - moov.offset else {
                throw MP4FieldError(field: "moov", problem: "\(moov.size) bytes run past the end of the file")
            }
            guard moov.size <= maxMoovBytes else {
                throw MP4FieldError(field: "moov", problem: "\(moov.size) bytes, more than the \(maxMoovBytes) an audio track's index needs")
            }
            var bytes = [UInt8](repeating: 0, count: Int(moov.size))
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(moov.offset)) }
            guard got == bytes.count else { throw MP4FieldError(field: "moov", problem: "cannot be read") }
            return try parse(moov: bytes, headerLength: moov.headerLength, fileSize: fileSize, path: path)
        } catch {
            throw error.named(path)
        }
    }

    static func parse(
        moov bytes: [UInt8], headerLength: Int, fileSize: Int64, path: String
    ) throws(MP4FieldError) -> AACTrack {
        let moov = MP4Box(type: "moov", payloadStart: headerLength, payloadEnd: bytes.count)
        let boxes = MP4Box.children(of: bytes, from: moov.payloadStart, to: moov.payloadEnd)
        guard let trak = boxes.first(where: { $0.type == "trak" && handlerType(of: $0, in: bytes) == "soun" }) else {
            throw MP4FieldError(field: "moov", problem: "no audio track")
        }
        guard let mdhd = trak.descendant(["mdia", "mdhd"], in: bytes),
              let timescale = MP4Gapless.headerTimescale(mdhd, in: bytes) else {
            throw MP4FieldError(field: "mdhd", problem: "the audio track has no media header")
        }
        guard timescale > 0 else { throw MP4FieldError(field: "mdhd timescale", problem: "is 0") }
        guard let stbl = trak.descendant(["mdia", "minf", "stbl"], in: bytes) else {
            throw MP4FieldError(field: "stbl", problem: "missing")
        }
        let config = try decoderConfig(stbl: stbl, in: bytes)
        let table = try MP4SampleTable(stbl: stbl, in: bytes, fileSize: fileSize)
        let gapless = try MP4Gapless.read(
            moov: moov, trak: trak, in: bytes, timescale: timescale, totalDuration: table.totalDuration)
        return AACTrack(
            decoderConfig: config, unitOffsets: table.offsets, unitSizes: table.sizes, unitDuration: table.unitDuration,
            timescale: timescale, priming: gapless.priming, validDuration: gapless.valid,
            firstMissingUnit: table.firstMissingUnit)
    }

    private static func handlerType(of trak: MP4Box, in bytes: [UInt8]) -> String? {
        guard let hdlr = trak.descendant(["mdia", "hdlr"], in: bytes) else { return nil }
        var reader = ByteReader(bytes, from: hdlr.payloadStart, to: hdlr.payloadEnd)
        guard reader.skip(8) else { return nil }
        return reader.fourCC()
    }

    private static func decoderConfig(stbl: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> [UInt8] {
        guard let stsd = stbl.child("stsd", in: bytes),
              let entry = MP4Box.children(of: bytes, from: stsd.payloadStart + 8, to: stsd.payloadEnd).first
        else { throw MP4FieldError(field: "stsd", problem: "no sample description") }
        guard entry.type == "mp4a" else { throw MP4FieldError.unsupportedCodec(entry.type) }
        // AudioSampleEntry: 8 bytes of SampleEntry, then 20 bytes (v0); QuickTime v1/v2 entries add 16/36.
        var reader = ByteReader(bytes, from: entry.payloadStart + 8, to: entry.payloadEnd)
        let version = reader.u16() ?? 0
        let extra = version == 1 ? 16 : version == 2 ? 36 : 0
        guard let esds = MP4Box.children(of: bytes, from: entry.payloadStart + 28 + extra, to: entry.payloadEnd)
            .first(where: { $0.type == "esds" }) ?? findBox("esds", in: bytes, from: entry.payloadStart, to: entry.payloadEnd)
        else { throw MP4FieldError(field: "mp4a", problem: "no esds box") }
        guard let config = audioSpecificConfig(esds: esds, in: bytes) else {
            throw MP4FieldError(field: "esds", problem: "no AAC decoder configuration")
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
}
