import COgg
import PlayolaSupport

/// The codec of one logical Ogg stream: its headers first, then audio packets into PCM.
///
/// Two real implementations, libvorbis and libopus, each fed packets by `OggPacketReader`; which one a
/// stream needs is in its first packet.
protocol OggCodec: AnyObject {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    /// The stream's tags (empty until its comment header has been read).
    var comments: VorbisComments { get }
    /// Takes the next header packet; true once every header is in and audio packets may follow.
    func takeHeader(_ packet: UnsafeMutablePointer<ogg_packet>) throws(AudioDecoderError) -> Bool
    /// Decodes one audio packet; its frames then come out of `drain`. A damaged packet is passed over.
    func decode(_ packet: UnsafeMutablePointer<ogg_packet>)
    /// Moves up to `maxFrames` decoded frames, interleaved, into `destination`; returns how many.
    func drain(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int
}

/// The codec for a logical stream whose first packet is `packet`; `name` is for messages.
func makeOggCodec(firstPacket packet: UnsafeMutablePointer<ogg_packet>, name: String) throws(AudioDecoderError) -> any OggCodec {
    let bytes = packet.pointee.contents
    if bytes.starts(with: [1] + Array("vorbis".utf8)) { return try VorbisCodec(name: name) }
    if bytes.starts(with: Array("OpusHead".utf8)) { return try OpusCodec(name: name) }
    let known: [(magic: [UInt8], codec: String)] = [
        (Array("\u{7F}FLAC".utf8), "FLAC"), (Array("Speex   ".utf8), "Speex"), ([0x80] + Array("theora".utf8), "Theora"),
    ]
    let codec = known.first { bytes.starts(with: $0.magic) }?.codec ?? "an unknown codec"
    throw .unsupported(path: name, reason: "an Ogg stream of \(codec) (Vorbis and Opus play)")
}

/// The channel counts the mixer takes from a stream.
let oggChannelRange = 1...2
