import PlayolaSupport
import Glibc

/// The title and artist a local audio file's own tags give: ID3v2 or ID3v1 (MP3), the MP4 item list
/// (`moov/udta/meta/ilst`: `©nam`, `©ART`), Vorbis comments (Ogg Vorbis, Ogg Opus, FLAC). Nil when the file
/// has none: the caller shows its name. Read from the file's first bytes (and its last 128 for ID3v1, its
/// `moov` wherever it is), never more than a tag needs.
public enum AudioFileTags {
    /// Titles come first in every tag format; cover art after them need not be read.
    static let headBytes = 256 << 10

    public static func read(path: String) -> StreamTags? {
        guard let file = try? FileDescriptor.open(path, O_RDONLY) else { return nil }
        defer { file.close() }
        guard let size = try? file.size() else { return nil }
        let head = bytes(file, at: 0, count: Int(min(size, Int64(headBytes))))
        if let tags = ID3Tag.tags(in: head[...]) { return tags }
        if head.starts(with: Array("fLaC".utf8)) { return flac(head) }
        if head.starts(with: Array("OggS".utf8)) { return ogg(head) }
        if head.count >= 8, head[4..<8].elementsEqual("ftyp".utf8) { return mp4(file, fileSize: size) }
        if size >= 128 { return ID3Tag.version1Tags(in: bytes(file, at: size - 128, count: 128)[...]) }
        return nil
    }

    private static func bytes(_ file: FileDescriptor, at offset: Int64, count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max(0, count))
        let got = buffer.withUnsafeMutableBytes { (try? file.read(into: $0, at: offset)) ?? 0 }
        return Array(buffer[0..<got])
    }

    /// FLAC's metadata blocks after `fLaC`: block type 4 is a Vorbis comment block.
    private static func flac(_ head: [UInt8]) -> StreamTags? {
        var at = 4
        while at + 4 <= head.count {
            let type = head[at] & 0x7F, isLast = head[at] & 0x80 != 0
            let length = Int(head[at + 1]) << 16 | Int(head[at + 2]) << 8 | Int(head[at + 3])
            guard length <= head.count - at - 4 else { return nil }
            if type == 4 {
                return head.withUnsafeBytes { VorbisComments(UnsafeRawBufferPointer(rebasing: $0[(at + 4)..<(at + 4 + length)]), skipping: 0) }?.tags.nonEmpty
            }
            if isLast { return nil }
            at += 4 + length
        }
        return nil
    }

    /// The comment header of the file's first logical stream: Vorbis's second packet, or Opus's `OpusTags`.
    private static func ogg(_ head: [UInt8]) -> StreamTags? {
        let reader = OggPacketReader()
        var offset = 0
        var packets = 0
        while packets < 2 {
            switch reader.next() {
            case .needBytes:
                guard offset < head.count else { return nil }
                let count = reader.write(upTo: 4096) { destination in
                    let count = min(destination.count, head.count - offset)
                    head.withUnsafeBytes { destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
                    return count
                }
                offset += count
            case .packet:
                packets += 1
                guard packets == 2 else { continue }
                let bytes = reader.packet.pointee.contents
                if bytes.starts(with: [3] + Array("vorbis".utf8)) { return VorbisComments(bytes, skipping: 7)?.tags.nonEmpty }
                if bytes.starts(with: Array("OpusTags".utf8)) { return VorbisComments(bytes, skipping: 8)?.tags.nonEmpty }
                return nil
            }
        }
        return nil
    }

    /// `moov/udta/meta/ilst`: each item's `data` box holds its text after 8 bytes of type and locale.
    private static func mp4(_ file: FileDescriptor, fileSize: Int64) -> StreamTags? {
        guard let moov = try? MP4TopLevelBox.find("moov", in: file, fileSize: fileSize),
              moov.size <= fileSize - moov.offset, moov.size <= MP4AudioTrackReader.maxMoovBytes else { return nil }
        let bytes = bytes(file, at: moov.offset, count: Int(moov.size))
        let box = MP4Box(type: "moov", payloadStart: moov.headerLength, payloadEnd: bytes.count)
        guard let meta = box.descendant(["udta", "meta"], in: bytes) else { return nil }
        // ISO's meta is a full box (4 bytes of version and flags); QuickTime's is not.
        let isFullBox = !(meta.payloadStart + 8 <= meta.payloadEnd && bytes[(meta.payloadStart + 4)..<(meta.payloadStart + 8)].elementsEqual("hdlr".utf8))
        guard let ilst = meta.child("ilst", in: bytes, skip: isFullBox ? 4 : 0) else { return nil }
        var tags = StreamTags(artist: nil, title: nil)
        for item in MP4Box.children(of: bytes, from: ilst.payloadStart, to: ilst.payloadEnd) {
            let name = bytes[(item.payloadStart - 4)..<item.payloadStart]
            guard name.first == 0xA9, let data = item.child("data", in: bytes), data.payloadEnd - data.payloadStart > 8 else { continue }
            let text = String(decoding: bytes[(data.payloadStart + 8)..<data.payloadEnd], as: UTF8.self).trimmingWhitespace()
            guard !text.isEmpty else { continue }
            if name.dropFirst().elementsEqual("nam".utf8) { tags.title = text }
            if name.dropFirst().elementsEqual("ART".utf8) { tags.artist = text }
        }
        return tags.nonEmpty
    }
}

extension StreamTags {
    /// Nil when neither title nor artist is there.
    var nonEmpty: StreamTags? { text == nil ? nil : self }
}
