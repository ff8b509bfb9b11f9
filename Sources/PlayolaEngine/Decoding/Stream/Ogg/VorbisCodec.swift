import COgg
import CVorbis

/// Vorbis packets into PCM through libvorbis's synthesis layer (what libvorbisfile does inside, without its
/// pull-style file callbacks, which cannot say "nothing yet" on a live stream).
final class VorbisCodec: OggCodec {
    private(set) var sampleRate = 0
    private(set) var channelCount = 0
    private(set) var comments = VorbisComments()
    private let name: String
    private let info = UnsafeMutablePointer<vorbis_info>.allocate(capacity: 1)
    private let comment = UnsafeMutablePointer<vorbis_comment>.allocate(capacity: 1)
    private let dsp = UnsafeMutablePointer<vorbis_dsp_state>.allocate(capacity: 1)
    private let block = UnsafeMutablePointer<vorbis_block>.allocate(capacity: 1)
    private var headerCount = 0
    private var synthesizing = false

    init(name: String) throws(AudioDecoderError) {
        self.name = name
        vorbis_info_init(info)
        vorbis_comment_init(comment)
    }

    deinit {
        if synthesizing {
            vorbis_block_clear(block)
            vorbis_dsp_clear(dsp)
        }
        vorbis_comment_clear(comment)
        vorbis_info_clear(info)
        info.deallocate()
        comment.deallocate()
        dsp.deallocate()
        block.deallocate()
    }

    func takeHeader(_ packet: UnsafeMutablePointer<ogg_packet>) throws(AudioDecoderError) -> Bool {
        let result = vorbis_synthesis_headerin(info, comment, packet)
        guard result == 0 else {
            throw .malformed(path: name, field: "Vorbis header \(headerCount + 1)", problem: "libvorbis refuses it (\(result))")
        }
        headerCount += 1
        if headerCount == 2, let parsed = VorbisComments(packet.pointee.contents, skipping: 7) { comments = parsed }
        guard headerCount == 3 else { return false }
        let rate = info.pointee.rate, channels = Int(info.pointee.channels)
        guard (8000...192_000).contains(rate) else {
            throw .malformed(path: name, field: "Vorbis sample rate", problem: "\(rate) Hz is outside 8000–192000")
        }
        guard oggChannelRange.contains(channels) else {
            throw .unsupported(path: name, reason: "a Vorbis stream of \(channels) channels (mono and stereo play)")
        }
        guard vorbis_synthesis_init(dsp, info) == 0 else {
            throw .decodeFailed(path: name, reason: "libvorbis cannot start decoding this stream")
        }
        vorbis_block_init(dsp, block)
        synthesizing = true
        sampleRate = rate
        channelCount = channels
        return true
    }

    func decode(_ packet: UnsafeMutablePointer<ogg_packet>) {
        if vorbis_synthesis(block, packet) == 0 { vorbis_synthesis_blockin(dsp, block) }
    }

    func drain(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        var planes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
        let count = min(Int(vorbis_synthesis_pcmout(dsp, &planes)), maxFrames)
        guard count > 0, let planes else { return 0 }
        for channel in 0..<channelCount {
            guard let plane = planes[channel] else { continue }
            var target = destination + channel
            for frame in 0..<count {
                target.pointee = plane[frame]
                target += channelCount
            }
        }
        vorbis_synthesis_read(dsp, Int32(count))
        return count
    }
}
