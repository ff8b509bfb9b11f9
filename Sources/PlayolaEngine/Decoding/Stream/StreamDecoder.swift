/// A decoder fed from a connection's `StreamBuffer` rather than a file: the bytes arrive at the pace of the
/// broadcast, so `read` returning 0 means "nothing yet" until `hasEnded` says the stream is over.
///
/// Three real implementations: mpg123's feed interface (MP3), faad2 over our own ADTS framing (AAC, HE-AAC)
/// and libvorbis or libopus over libogg (Ogg Vorbis, Ogg Opus).
/// The format is known only once the first frames have arrived: `prepare()` is called until it is true,
/// and only then are `sampleRate` and `channelCount` meaningful.
public protocol StreamDecoder: AudioDecoder {
    /// Reads what has arrived until the stream's format is known. Throws when the bytes are not this format.
    func prepare() throws(AudioDecoderError) -> Bool
    /// The connection ended and every byte it brought has been decoded.
    var hasEnded: Bool { get }
}

extension StreamDecoder {
    public var frameCount: Int64? { nil }

    /// A live stream has no positions to go to; a voice joins it where it is.
    public func seek(toFrame frame: Int64) throws(AudioDecoderError) {
        guard frame == 0 else { throw .unsupported(path: "stream", reason: "a live stream cannot seek") }
    }
}

/// The decoder for a stream of `format`, reading from `buffer`; `name` (the URL) is for messages. `onTags`
/// hears the titles a format carries inside its audio (Ogg's), on the decode thread.
public func openStreamDecoder(
    _ format: StreamFormat, buffer: StreamBuffer, name: String, onTags: @escaping @Sendable (StreamTags) -> Void = { _ in }
) throws(AudioDecoderError) -> any StreamDecoder {
    switch format {
    case .mp3: try MP3StreamDecoder(buffer: buffer, name: name)
    case .aac: try ADTSStreamDecoder(buffer: buffer, name: name)
    case .ogg: OggStreamDecoder(buffer: buffer, name: name, onTags: onTags)
    }
}
