import PlayolaSupport

/// Reads the AAC audio track of an MP4/M4A file: the decoder config (`stsd`/`esds`), the sample table
/// (`stts`, `stsc`, `stsz`, `stco`/`co64`) and the priming and padding (edit list, else `iTunSMPB`, else
/// the customary 2112 samples). `moov` may come before or after `mdat`.
enum MP4AudioTrackReader {
    /// More than any real audio track's index needs (an hour of AAC has a few hundred KB of `moov`).
    static let maxMoovBytes: Int64 = 16 << 20

    static func read(path: String) throws(AudioDecoderError) -> AACTrack {
        let file = try FileDescriptor.reading(path)
        defer { file.close() }
        let fileSize: Int64
        do { fileSize = try file.size() } catch { throw .cannotOpen(path: path, reason: error.description) }
        do throws(MP4FieldError) {
            guard let moov = try MP4TopLevelBox.find("moov", in: file, fileSize: fileSize) else {
                throw MP4FieldError(field: "moov", problem: "missing (the file is incomplete or not an MP4)")
            }
            guard moov.size <= fileSize - moov.offset else {
                throw MP4FieldError(field: "moov", problem: "\(moov.size) bytes run past the end of the file")
            }
            guard moov.size <= maxMoovBytes else {
                throw MP4FieldError(field: "moov", problem: "\(moov.size) bytes, more than the \(maxMoovBytes) an audio track's index needs")
            }
            var bytes = [UInt8](repeating: 0, count: Int(moov.size))
            let got = bytes.withUnsafeMutableBytes { try? file.read(into: $0, at: moov.offset) }
            guard got == bytes.count else { throw MP4FieldError(field: "moov", problem: "cannot be read") }
            return try parse(moov: bytes, headerLength: moov.headerLength, fileSize: fileSize, path: path) { trackID, defaults throws(MP4FieldError) in
                try MP4Fragments(file: file, fileSize: fileSize, trackID: trackID, defaults: defaults)
            }
        } catch {
            throw error.named(path)
        }
    }

    /// `fragments` reads the movie fragments of the track whose id it is given, when `moov` says there are
    /// some (`mvex`).
    static func parse(
        moov bytes: [UInt8], headerLength: Int, fileSize: Int64, path: String,
        fragments: (UInt32, MP4TrackRun.Defaults) throws(MP4FieldError) -> MP4Fragments
    ) throws(MP4FieldError) -> AACTrack {
        let moov = MP4Box(type: "moov", payloadStart: headerLength, payloadEnd: bytes.count)
        let trak = try audioTrack(moov, in: bytes)
        guard let mdhd = trak.descendant(["mdia", "mdhd"], in: bytes),
              let timescale = MP4Gapless.headerTimescale(mdhd, in: bytes) else {
            throw MP4FieldError(field: "mdhd", problem: "the audio track has no media header")
        }
        guard timescale > 0 else { throw MP4FieldError(field: "mdhd timescale", problem: "is 0") }
        guard let stbl = trak.descendant(["mdia", "minf", "stbl"], in: bytes) else {
            throw MP4FieldError(field: "stbl", problem: "missing")
        }
        let config = try decoderConfig(stbl: stbl, in: bytes)
        let isFragmented = moov.child("mvex", in: bytes) != nil
        var table = try MP4SampleTable(stbl: stbl, in: bytes, fileSize: fileSize, mayBeEmpty: isFragmented)
        if isFragmented, table.firstMissingUnit == nil {
            let trackID = try self.trackID(trak, in: bytes)
            let found = try fragments(trackID, MP4TrackRun.Defaults(moov: moov, trackID: trackID, in: bytes))
            try table.append(found)
        }
        guard table.unitDuration > 0 else { throw MP4FieldError(field: "stts", problem: "no sample has a duration") }
        let gapless = try MP4Gapless.read(
            moov: moov, trak: trak, in: bytes, timescale: timescale, totalDuration: table.totalDuration)
        return AACTrack(
            decoderConfig: config, unitOffsets: table.offsets, unitSizes: table.sizes, unitDuration: table.unitDuration,
            timescale: timescale, priming: gapless.priming, validDuration: gapless.valid,
            firstMissingUnit: table.firstMissingUnit)
    }

    /// The first `trak` whose handler is `soun`.
    static func audioTrack(_ moov: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> MP4Box {
        guard let trak = MP4Box.children(of: bytes, from: moov.payloadStart, to: moov.payloadEnd)
            .first(where: { $0.type == "trak" && handlerType(of: $0, in: bytes) == "soun" })
        else { throw MP4FieldError(field: "moov", problem: "no audio track") }
        return trak
    }

    static func trackID(_ trak: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> UInt32 {
        guard let tkhd = trak.child("tkhd", in: bytes) else { throw MP4FieldError(field: "tkhd", problem: "missing") }
        var reader = ByteReader(bytes, from: tkhd.payloadStart, to: tkhd.payloadEnd)
        guard let version = reader.u8(), reader.skip(3 + (version == 1 ? 16 : 8)), let id = reader.u32() else {
            throw MP4FieldError(field: "tkhd", problem: "shorter than its fields")
        }
        return id
    }

    private static func handlerType(of trak: MP4Box, in bytes: [UInt8]) -> String? {
        guard let hdlr = trak.descendant(["mdia", "hdlr"], in: bytes) else { return nil }
        var reader = ByteReader(bytes, from: hdlr.payloadStart, to: hdlr.payloadEnd)
        guard reader.skip(8) else { return nil }
        return reader.fourCC()
    }

    static func decoderConfig(stbl: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> [UInt8] {
        guard let config = audioSpecificConfig(esds: try esds(stbl: stbl, in: bytes), in: bytes) else {
            throw MP4FieldError(field: "esds", problem: "no AAC decoder configuration")
        }
        return config
    }

    /// The esds's objectTypeIndication (0x40 MPEG-4 audio; 0x69 and 0x6B MPEG-1/2 audio, that is MP3).
    static func objectTypeIndication(stbl: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> UInt8? {
        let esds = try esds(stbl: stbl, in: bytes)
        var descriptors = ESDescriptorReader(reader: ByteReader(bytes, from: esds.payloadStart + 4, to: esds.payloadEnd))
        var config = descriptors.enterDecoderConfig()
        return config?.u8()
    }

    private static func esds(stbl: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> MP4Box {
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
        return esds
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
        var descriptors = ESDescriptorReader(reader: ByteReader(bytes, from: esds.payloadStart + 4, to: esds.payloadEnd))
        guard var reader = descriptors.enterDecoderConfig(), reader.skip(13) else { return nil }
        var inner = ESDescriptorReader(reader: reader)
        guard let specific = inner.descriptor(), specific.tag == 5, specific.length > 0, inner.reader.remaining >= specific.length
        else { return nil }
        return Array(bytes[inner.reader.position..<inner.reader.position + specific.length])
    }
}

/// Walks the MPEG-4 descriptors of an `esds` box (ISO 14496-1 7.2.6).
private struct ESDescriptorReader {
    var reader: ByteReader

    mutating func descriptor() -> (tag: UInt8, length: Int)? {
        guard let tag = reader.u8() else { return nil }
        var length = 0
        for _ in 0..<4 {
            guard let byte = reader.u8() else { return nil }
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return (tag, length)
    }

    /// Past the ES_Descriptor's header and optional fields, to the DecoderConfigDescriptor's payload.
    mutating func enterDecoderConfig() -> ByteReader? {
        guard let es = descriptor(), es.tag == 3, reader.skip(2), let flags = reader.u8() else { return nil }
        if flags & 0x80 != 0 { guard reader.skip(2) else { return nil } }
        if flags & 0x40 != 0 { guard let urlLength = reader.u8(), reader.skip(Int(urlLength)) else { return nil } }
        if flags & 0x20 != 0 { guard reader.skip(2) else { return nil } }
        guard let config = descriptor(), config.tag == 4 else { return nil }
        return reader
    }
}
