import CMPG123

/// MP3 through libmpg123: gapless (the LAME/Xing encoder delay and padding are removed), float output,
/// sample-exact seeks (mpg123 decodes from a few frames earlier and trims).
public final class MP3Decoder: AudioDecoder {
    public let sampleRate: Int
    public let channelCount: Int
    public let frameCount: Int64?
    private let mpg123: MPG123Handle

    public init(path: String) throws(AudioDecoderError) {
        mpg123 = try MPG123Handle(name: path, flags: Int32(MPG123_GAPLESS.rawValue))
        try mpg123.open(path: path)
        guard let format = mpg123.format else { throw .invalid(path: path, reason: "no MPEG audio frame found") }
        (sampleRate, channelCount) = format
        // The length from the Xing/LAME tag (exact, gapless-trimmed) or an estimate; no full scan, which
        // would read the whole file once more. A truncated file then ends short of the length its tag says.
        frameCount = DecodeLimits.announcedFrames(mpg123.length)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        while true {
            let (status, frames) = mpg123.read(into: buffer, maxFrames: maxFrames, channels: channelCount)
            switch status {
            case MPG123_OK.rawValue, MPG123_DONE.rawValue:
                return frames
            case MPG123_NEW_FORMAT.rawValue where frames == 0:
                continue // announced once after the first frame; the format was fixed at open
            case MPG123_NEW_FORMAT.rawValue:
                return frames
            default:
                throw .decodeFailed(path: mpg123.name, reason: mpg123.lastError)
            }
        }
    }

    public func seek(toFrame frame: Int64) throws(AudioDecoderError) { try mpg123.seek(toFrame: frame) }
}
