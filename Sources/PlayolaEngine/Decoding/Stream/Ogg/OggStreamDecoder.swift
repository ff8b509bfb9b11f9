import COgg

/// Ogg Vorbis and Ogg Opus from a stream (Icecast's Ogg mounts), chained: each track is a new logical
/// stream with its own headers, whose tags go to `onTags` (on the decode thread) as an ICY title would.
///
/// A link whose rate or channels differ from the first throws, as an MP3 stream changing format does: the
/// player reconnects and a new decoder opens at the new format.
public final class OggStreamDecoder: StreamDecoder {
    public private(set) var sampleRate = 0
    public private(set) var channelCount = 0
    public var hasEnded: Bool { input.hasEnded }
    /// The tags of the link now playing.
    public private(set) var tags = StreamTags(artist: nil, title: nil)
    private let onTags: @Sendable (StreamTags) -> Void
    /// Read straight into libogg's buffer, so without a chunk of its own.
    private let input: StreamInput
    private let name: String
    private let reader = OggPacketReader()
    /// The link whose audio is playing.
    private var playing: (any OggCodec)?
    /// A link whose headers are still arriving.
    private var starting: (any OggCodec)?
    /// Bytes read while no link had all its headers: a stream that never gives them is not Ogg audio.
    private var readWithoutHeaders = 0
    private static let pageSearchLimit = 64 << 10
    /// Headers may carry cover art in their tags: a larger allowance than for the first page.
    private static let headerSearchLimit = 256 << 10
    /// Audio packets are a few KB (Opus's largest is 60 KB), headers are held to `headerSearchLimit`: a
    /// packet continued page after page past this is not audio, and libogg would keep all of it.
    private static let maxPacketBytes = 256 << 10
    private static let chunk = 4096

    public init(buffer: StreamBuffer, name: String, onTags: @escaping @Sendable (StreamTags) -> Void) {
        input = StreamInput(buffer, chunkBytes: 0)
        self.name = name
        self.onTags = onTags
    }

    public func prepare() throws(AudioDecoderError) -> Bool {
        while sampleRate == 0 {
            guard try advance() else { return false }
        }
        return true
    }

    public func read(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        var written = 0
        while written < maxFrames {
            if let playing {
                let count = playing.drain(into: destination + written * channelCount, maxFrames: maxFrames - written)
                if count > 0 {
                    written += count
                    continue
                }
            }
            guard try advance() else { break }
        }
        return written
    }

    /// Takes one packet (reading what has arrived if none is whole). False when nothing more has arrived.
    private func advance() throws(AudioDecoderError) -> Bool {
        switch reader.next() {
        case .needBytes:
            return try feed()
        case .packet(let startsLogicalStream):
            if startsLogicalStream { starting = try makeOggCodec(firstPacket: reader.packet, name: name) }
            if let link = starting {
                if try link.takeHeader(reader.packet) { try begin(link) }
            } else {
                playing?.decode(reader.packet)
            }
            return true
        }
    }

    private func begin(_ link: any OggCodec) throws(AudioDecoderError) {
        if sampleRate == 0 {
            sampleRate = link.sampleRate
            channelCount = link.channelCount
        } else if link.sampleRate != sampleRate || link.channelCount != channelCount {
            throw .unsupported(path: name, reason: "the stream changed format to \(link.sampleRate) Hz, \(link.channelCount) channels")
        }
        playing = link
        starting = nil
        readWithoutHeaders = 0
        if link.comments.tags != tags {
            tags = link.comments.tags
            if tags.text != nil { onTags(tags) }
        }
    }

    private func feed() throws(AudioDecoderError) -> Bool {
        guard reader.unfinishedPacketBytes <= Self.maxPacketBytes else {
            throw .malformed(path: name, field: "Ogg packet", problem: "goes on past \(Self.maxPacketBytes >> 10) KiB")
        }
        let count = reader.write(upTo: Self.chunk) { input.read(into: $0) }
        guard count > 0 else { return false }
        if playing == nil || starting != nil {
            readWithoutHeaders += count
            if reader.pageCount == 0 && readWithoutHeaders > Self.pageSearchLimit {
                throw .invalid(path: name, reason: "no Ogg page in the first \(Self.pageSearchLimit >> 10) KiB")
            }
            if readWithoutHeaders > Self.headerSearchLimit {
                throw .invalid(path: name, reason: "no Vorbis or Opus headers in the first \(Self.headerSearchLimit >> 10) KiB of Ogg")
            }
        }
        return true
    }
}
