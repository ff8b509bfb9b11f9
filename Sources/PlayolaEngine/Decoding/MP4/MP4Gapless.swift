
/// Where the real audio of an AAC track lies: the priming to drop and the frames that follow it, from the edit
/// list, else iTunes' `iTunSMPB`, else the customary priming. What a file says is clamped to the track.
enum MP4Gapless {
    /// The priming assumed when the file says nothing (Apple's and most encoders' AAC-LC delay).
    static let defaultPriming: Int64 = 2112

    /// Priming and valid duration in the media timescale, both within `[0, totalDuration]`.
    static func read(
        moov: MP4Box, trak: MP4Box, in bytes: [UInt8], timescale: Int64, totalDuration: Int64
    ) throws(MP4FieldError) -> (priming: Int64, valid: Int64) {
        var priming = defaultPriming
        var valid = totalDuration - defaultPriming
        if let edit = editList(trak: trak, in: bytes) {
            let movieTimescale = try self.movieTimescale(moov: moov, in: bytes)
            priming = edit.mediaTime
            valid = edit.segmentDuration.scaled(by: timescale, over: movieTimescale)
        } else if let smpb = iTunSMPB(moov: moov, in: bytes) {
            priming = smpb.priming
            valid = smpb.frames
        }
        priming = min(max(0, priming), totalDuration)
        return (priming, min(max(0, valid), totalDuration - priming))
    }

    /// The edit list's segment durations are in the movie's timescale (`mvhd`), not the track's.
    private static func movieTimescale(moov: MP4Box, in bytes: [UInt8]) throws(MP4FieldError) -> Int64 {
        guard let mvhd = moov.child("mvhd", in: bytes) else { return 1000 }
        guard let timescale = headerTimescale(mvhd, in: bytes) else { throw MP4FieldError(field: "mvhd", problem: "cut short") }
        guard timescale > 0 else { throw MP4FieldError(field: "mvhd timescale", problem: "is 0") }
        return timescale
    }

    /// The timescale of an `mvhd` or `mdhd` (versions 0 and 1).
    static func headerTimescale(_ box: MP4Box, in bytes: [UInt8]) -> Int64? {
        var reader = ByteReader(bytes, from: box.payloadStart, to: box.payloadEnd)
        guard let version = reader.u8(), reader.skip(3), reader.skip(version == 1 ? 16 : 8) else { return nil }
        return reader.u32().map(Int64.init)
    }

    private static func editList(trak: MP4Box, in bytes: [UInt8]) -> (mediaTime: Int64, segmentDuration: Int64)? {
        guard let elst = trak.descendant(["edts", "elst"], in: bytes) else { return nil }
        var reader = ByteReader(bytes, from: elst.payloadStart, to: elst.payloadEnd)
        guard let version = reader.u8(), reader.skip(3), let count = reader.u32() else { return nil }
        for _ in 0..<count { // ends at the box's end: each entry is read or the list is abandoned
            let duration = version == 1 ? reader.u64().map { Int64(clamping: $0) } : reader.u32().map { Int64($0) }
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
            // `name` and `data` are full boxes (4 bytes of version and flags; `data` 4 more of locale).
            guard let name = parts.first(where: { $0.type == "name" }), name.payloadEnd - name.payloadStart >= 4,
                  String(decoding: bytes[name.payloadStart + 4..<name.payloadEnd], as: UTF8.self) == "iTunSMPB",
                  let data = parts.first(where: { $0.type == "data" }), data.payloadEnd - data.payloadStart > 8
            else { continue }
            let text = String(decoding: bytes[data.payloadStart + 8..<data.payloadEnd], as: UTF8.self)
            let fields = text.split(separator: " ").prefix(4).map { field in
                UInt64(field, radix: 16).map { Int64(clamping: $0) }
            }
            guard fields.count == 4, let priming = fields[1], let frames = fields[3] else { return nil }
            return (priming, frames)
        }
        return nil
    }
}
