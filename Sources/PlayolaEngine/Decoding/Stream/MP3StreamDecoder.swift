import CMPG123
import Glibc

/// MP3 from a stream through libmpg123's feed interface: bytes are fed as they arrive, and mpg123 finds
/// frame sync itself (after an ID3 tag, garbage or a cut), so a damaged stretch resyncs instead of stopping.
public final class MP3StreamDecoder: StreamDecoder {
    public private(set) var sampleRate = 0
    public private(set) var channelCount = 0
    public private(set) var hasEnded = false
    private let handle: OpaquePointer
    private let buffer: StreamBuffer
    private let name: String
    private let input: UnsafeMutableRawBufferPointer
    /// Bytes fed since the format was last unknown: without a frame in this many, the stream is not MP3.
    private var fedWithoutFormat = 0
    private static let formatSearchLimit = 64 << 10

    public init(buffer: StreamBuffer, name: String) throws(AudioDecoderError) {
        self.buffer = buffer
        self.name = name
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw .cannotOpen(path: name, reason: String(cString: mpg123_plain_strerror(status)))
        }
        self.handle = handle
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(MPG123_QUIET.rawValue), 0)
        // Look further for sync than the default 1 KiB: a stream may start mid-frame after junk.
        mpg123_param2(handle, Int32(MPG123_RESYNC_LIMIT.rawValue), 64 << 10, 0)
        mpg123_format_none(handle)
        for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] {
            mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue), Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
            let reason = String(cString: mpg123_strerror(handle))
            mpg123_delete(handle)
            throw .cannotOpen(path: name, reason: reason)
        }
        input = .allocate(byteCount: 16 << 10, alignment: 16)
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
        input.deallocate()
    }

    public func prepare() throws(AudioDecoderError) -> Bool {
        if sampleRate > 0 { return true }
        while true {
            var done = 0
            let status = mpg123_decode_frame(handle, nil, nil, &done)
            if status == MPG123_NEW_FORMAT.rawValue {
                var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                sampleRate = rate
                channelCount = Int(channels)
                return true
            }
            guard status == MPG123_NEED_MORE.rawValue || status == MPG123_OK.rawValue else {
                throw .decodeFailed(path: name, reason: String(cString: mpg123_strerror(handle)))
            }
            guard try feed() else { return false }
            if fedWithoutFormat > Self.formatSearchLimit {
                throw .invalid(path: name, reason: "no MPEG audio frame in the first \(Self.formatSearchLimit >> 10) KiB")
            }
        }
    }

    public func read(into output: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        let bytesPerFrame = channelCount * MemoryLayout<Float>.size
        while true {
            var done = 0
            let status = mpg123_read(handle, UnsafeMutableRawPointer(output), maxFrames * bytesPerFrame, &done)
            if done > 0 { return done / bytesPerFrame }
            switch status {
            case MPG123_NEED_MORE.rawValue, MPG123_OK.rawValue, MPG123_DONE.rawValue:
                guard try feed() else { return 0 }
            case MPG123_NEW_FORMAT.rawValue:
                var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                guard rate == sampleRate, Int(channels) == channelCount else {
                    throw .unsupported(path: name, reason: "the stream changed format to \(rate) Hz, \(channels) channels")
                }
            default:
                throw .decodeFailed(path: name, reason: String(cString: mpg123_strerror(handle)))
            }
        }
    }

    /// Moves what has arrived into mpg123. False when there is nothing (yet, or ever: then `hasEnded`).
    private func feed() throws(AudioDecoderError) -> Bool {
        let count = buffer.read(into: input)
        guard count > 0 else {
            if buffer.isDrained { hasEnded = true }
            return false
        }
        if sampleRate == 0 { fedWithoutFormat += count }
        guard mpg123_feed(handle, input.baseAddress!.assumingMemoryBound(to: UInt8.self), count) == MPG123_OK.rawValue else {
            throw .decodeFailed(path: name, reason: String(cString: mpg123_strerror(handle)))
        }
        return true
    }
}
