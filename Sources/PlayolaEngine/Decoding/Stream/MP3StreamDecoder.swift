import CMPG123

/// MP3 from a stream through libmpg123's feed interface: bytes are fed as they arrive, and mpg123 finds
/// frame sync itself (after an ID3 tag, garbage or a cut), so a damaged stretch resyncs instead of stopping.
public final class MP3StreamDecoder: StreamDecoder {
    public private(set) var sampleRate = 0
    public private(set) var channelCount = 0
    public var hasEnded: Bool { input.hasEnded }
    private let mpg123: MPG123Handle
    private let input: StreamInput
    private let name: String
    /// Bytes fed since the format was last unknown: without a frame in this many, the stream is not MP3.
    private var fedWithoutFormat = 0
    private static let formatSearchLimit = 64 << 10

    public init(buffer: StreamBuffer, name: String) throws(AudioDecoderError) {
        input = StreamInput(buffer)
        self.name = name
        // Look further for sync than the default 1 KiB: a stream may start mid-frame after junk.
        mpg123 = try MPG123Handle(name: name, resyncLimit: 64 << 10)
        try mpg123.open(path: nil)
    }

    public func prepare() throws(AudioDecoderError) -> Bool {
        if sampleRate > 0 { return true }
        while true {
            let status = mpg123.decodeFrame()
            if status == MPG123_NEW_FORMAT.rawValue, let format = mpg123.format {
                (sampleRate, channelCount) = format
                return true
            }
            guard status == MPG123_NEED_MORE.rawValue || status == MPG123_OK.rawValue else {
                throw .decodeFailed(path: name, reason: mpg123.lastError)
            }
            guard try feed() else { return false }
            if fedWithoutFormat > Self.formatSearchLimit {
                throw .invalid(path: name, reason: "no MPEG audio frame in the first \(Self.formatSearchLimit >> 10) KiB")
            }
        }
    }

    public func read(into output: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        while true {
            let (status, frames) = mpg123.read(into: output, maxFrames: maxFrames, channels: channelCount)
            if frames > 0 { return frames }
            switch status {
            case MPG123_NEED_MORE.rawValue, MPG123_OK.rawValue, MPG123_DONE.rawValue:
                guard try feed() else { return 0 }
            case MPG123_NEW_FORMAT.rawValue:
                let format = mpg123.format ?? (0, 0)
                guard format.rate == sampleRate, format.channels == channelCount else {
                    throw .unsupported(path: name, reason: "the stream changed format to \(format.rate) Hz, \(format.channels) channels")
                }
            default:
                throw .decodeFailed(path: name, reason: mpg123.lastError)
            }
        }
    }

    /// Moves what has arrived into mpg123. False when there is nothing (yet, or ever: then `hasEnded`).
    private func feed() throws(AudioDecoderError) -> Bool {
        let bytes = input.read()
        guard !bytes.isEmpty else { return false }
        if sampleRate == 0 { fedWithoutFormat += bytes.count }
        try mpg123.feed(bytes)
        return true
    }
}
