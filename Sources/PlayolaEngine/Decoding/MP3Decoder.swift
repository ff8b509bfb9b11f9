import CMPG123
import Glibc

/// MP3 through libmpg123: gapless (the LAME/Xing encoder delay and padding are removed), float output,
/// sample-exact seeks (mpg123 decodes from a few frames earlier and trims).
public final class MP3Decoder: AudioDecoder {
    public let sampleRate: Int
    public let channelCount: Int
    public let frameCount: Int64?
    private let handle: OpaquePointer
    private let path: String

    public init(path: String) throws(AudioDecoderError) {
        self.path = path
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw .cannotOpen(path: path, reason: String(cString: mpg123_plain_strerror(status)))
        }
        self.handle = handle
        // Gapless; QUIET keeps libmpg123 off our stderr (we report ourselves).
        let flags = Int(MPG123_GAPLESS.rawValue | MPG123_QUIET.rawValue)
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0)
        mpg123_format_none(handle)
        for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] {
            mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                          Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
        guard mpg123_open(handle, path) == MPG123_OK.rawValue else {
            let reason = String(cString: mpg123_strerror(handle))
            mpg123_delete(handle)
            throw .cannotOpen(path: path, reason: reason)
        }
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue, rate > 0 else {
            mpg123_delete(handle)
            throw .invalid(path: path, reason: "no MPEG audio frame found")
        }
        sampleRate = rate
        channelCount = Int(channels)
        // The length from the Xing/LAME tag (exact, gapless-trimmed) or an estimate; no full scan, which
        // would read the whole file once more. A truncated file then ends short of the length its tag says.
        let length = mpg123_length(handle)
        frameCount = DecodeLimits.announcedFrames(Int64(length))
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        let bytesPerFrame = channelCount * MemoryLayout<Float>.size
        var done = 0
        while true {
            let status = mpg123_read(handle, UnsafeMutableRawPointer(buffer), maxFrames * bytesPerFrame, &done)
            switch status {
            case MPG123_OK.rawValue, MPG123_DONE.rawValue:
                return done / bytesPerFrame
            case MPG123_NEW_FORMAT.rawValue where done == 0:
                continue // announced once after the first frame; the format was fixed at open
            case MPG123_NEW_FORMAT.rawValue:
                return done / bytesPerFrame
            default:
                throw .decodeFailed(path: path, reason: String(cString: mpg123_strerror(handle)))
            }
        }
    }

    public func seek(toFrame frame: Int64) throws(AudioDecoderError) {
        guard mpg123_seek(handle, off_t(frame), SEEK_SET) >= 0 else {
            throw .decodeFailed(path: path, reason: "seek to frame \(frame): " + String(cString: mpg123_strerror(handle)))
        }
    }
}
