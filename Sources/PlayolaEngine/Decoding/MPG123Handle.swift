import CMPG123
import Glibc

/// One libmpg123 handle, set up the one way the engine decodes MP3: float output at the rates the resampler
/// takes, mono or stereo, quiet (we report errors ourselves). Files and streams both decode through it.
final class MPG123Handle {
    /// The file or stream, for errors.
    let name: String
    private let handle: OpaquePointer

    /// `flags` are added to MPG123_QUIET; `resyncLimit` is how far to look for frame sync (mpg123's default: 1 KiB).
    init(name: String, flags: Int32 = 0, resyncLimit: Int? = nil) throws(AudioDecoderError) {
        self.name = name
        var status: Int32 = 0
        guard let handle = mpg123_new(nil, &status) else {
            throw .cannotOpen(path: name, reason: String(cString: mpg123_plain_strerror(status)))
        }
        self.handle = handle
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(flags | Int32(MPG123_QUIET.rawValue)), 0)
        if let resyncLimit { mpg123_param2(handle, Int32(MPG123_RESYNC_LIMIT.rawValue), resyncLimit, 0) }
        mpg123_format_none(handle)
        for rate in [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000] {
            mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue), Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// Opens a file, or with nil the feed interface that `feed` fills.
    func open(path: String?) throws(AudioDecoderError) {
        guard (path.map { mpg123_open(handle, $0) } ?? mpg123_open_feed(handle)) == MPG123_OK.rawValue else {
            throw .cannotOpen(path: name, reason: lastError)
        }
    }

    /// The output format, once mpg123 has found it.
    var format: (rate: Int, channels: Int)? {
        var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue, rate > 0 else { return nil }
        return (rate, Int(channels))
    }

    /// Frames, from the Xing/LAME tag (gapless) or an estimate; negative when unknown.
    var length: Int64 { Int64(mpg123_length(handle)) }

    /// Up to `maxFrames` frames of `channels` floats; mpg123's status and the whole frames it wrote.
    @inline(__always)
    func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int, channels: Int) -> (status: Int32, frames: Int) {
        let bytesPerFrame = channels * MemoryLayout<Float>.size
        var done = 0
        let status = mpg123_read(handle, UnsafeMutableRawPointer(buffer), maxFrames * bytesPerFrame, &done)
        return (status, done / bytesPerFrame)
    }

    /// Decodes the next frame without taking its samples (to learn the format).
    func decodeFrame() -> Int32 {
        var done = 0
        return mpg123_decode_frame(handle, nil, nil, &done)
    }

    func feed(_ bytes: UnsafeRawBufferPointer) throws(AudioDecoderError) {
        guard mpg123_feed(handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count) == MPG123_OK.rawValue else {
            throw .decodeFailed(path: name, reason: lastError)
        }
    }

    func seek(toFrame frame: Int64) throws(AudioDecoderError) {
        guard mpg123_seek(handle, off_t(frame), SEEK_SET) >= 0 else {
            throw .decodeFailed(path: name, reason: "seek to frame \(frame): " + lastError)
        }
    }

    var lastError: String { String(cString: mpg123_strerror(handle)) }
}
