import COgg
import COpus
import Glibc

/// Opus packets into PCM through libopus, at 48 kHz always (Opus's own rate: no resampling on the way to
/// a 48 kHz mix). The Ogg mapping's header (RFC 7845 §5.1) gives the channels, the frames to drop at the
/// start (pre-skip) and an output gain; its tags header (`OpusTags`) the title.
final class OpusCodec: OggCodec {
    let sampleRate = 48000
    private(set) var channelCount = 0
    private(set) var comments = VorbisComments()
    private let name: String
    private var decoder: OpaquePointer?
    private var headerCount = 0
    private var preSkipLeft = 0
    /// The granule position (48 kHz frames from the link's start, pre-skip included) after the last packet,
    /// once a page has told it: the last page's says where the link ends, and what the last packet decodes
    /// past it is the encoder's padding (RFC 7845 §4.4), which would be a gap between two links.
    private var position: Int64?
    private var gain: Float = 1
    /// One packet's PCM: Opus packets hold at most 120 ms.
    private let staged: UnsafeMutablePointer<Float>
    private var stagedStart = 0
    private var stagedFrames = 0
    private static let maxPacketFrames = 5760

    init(name: String) throws(AudioDecoderError) {
        self.name = name
        staged = .allocate(capacity: Self.maxPacketFrames * oggChannelRange.upperBound)
    }

    deinit {
        if let decoder { opus_decoder_destroy(decoder) }
        staged.deallocate()
    }

    func takeHeader(_ packet: UnsafeMutablePointer<ogg_packet>) throws(AudioDecoderError) -> Bool {
        headerCount += 1
        let bytes = packet.pointee.contents
        if headerCount == 1 {
            try readIdentification(bytes)
            return false
        }
        guard bytes.starts(with: Array("OpusTags".utf8)), let parsed = VorbisComments(bytes, skipping: 8) else {
            throw .malformed(path: name, field: "OpusTags", problem: "not a valid comment header")
        }
        comments = parsed
        return true
    }

    private func readIdentification(_ bytes: UnsafeRawBufferPointer) throws(AudioDecoderError) {
        var reader = LittleEndianReader(bytes, at: 8)
        guard let version = reader.uint8(), let channels = reader.uint8(), let preSkip = reader.uint16(),
              reader.skip(4), let gainQ8 = reader.uint16(), let family = reader.uint8()
        else { throw .malformed(path: name, field: "OpusHead", problem: "shorter than 19 bytes") }
        guard version >> 4 == 0 else {
            throw .unsupported(path: name, reason: "Ogg Opus mapping version \(version)")
        }
        guard family == 0, oggChannelRange.contains(Int(channels)) else {
            throw .unsupported(path: name, reason: "an Opus stream of \(channels) channels, mapping family \(family) (mono and stereo play)")
        }
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(48000, Int32(channels), &error) else {
            throw .decodeFailed(path: name, reason: String(cString: opus_strerror(error)))
        }
        self.decoder = decoder
        channelCount = Int(channels)
        preSkipLeft = Int(preSkip)
        gain = Float(pow(10, Double(Int16(bitPattern: gainQ8)) / (20 * 256)))
    }

    func decode(_ packet: UnsafeMutablePointer<ogg_packet>) {
        let bytes = packet.pointee.contents
        guard let decoder, let data = bytes.baseAddress, bytes.count <= Int32.max else { return }
        var frames = Int(opus_decode_float(decoder, data.assumingMemoryBound(to: UInt8.self), Int32(bytes.count), staged, Int32(Self.maxPacketFrames), 0))
        guard frames > 0 else { return }  // a damaged packet: the next one decodes
        let granule = packet.pointee.granulepos
        if packet.pointee.e_o_s != 0, granule >= 0, let position, granule >= position {
            frames = Int(min(Int64(frames), granule - position))
        }
        if granule >= 0 {
            position = granule
        } else if let known = position {
            // A page may claim a granule just under 2^63: past it, where the link ends is unknown.
            let (next, overflow) = known.addingReportingOverflow(Int64(frames))
            position = overflow ? nil : next
        }
        let skipped = min(preSkipLeft, frames)
        preSkipLeft -= skipped
        stagedStart = skipped
        stagedFrames = frames - skipped
        if gain != 1 {
            for index in stagedStart * channelCount..<frames * channelCount { staged[index] *= gain }
        }
    }

    func drain(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        let count = min(stagedFrames, maxFrames)
        guard count > 0 else { return 0 }
        destination.update(from: staged + stagedStart * channelCount, count: count * channelCount)
        stagedStart += count
        stagedFrames -= count
        return count
    }
}
