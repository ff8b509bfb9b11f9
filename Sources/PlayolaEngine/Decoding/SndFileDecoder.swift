import CSndFile

/// WAV, FLAC, Ogg Vorbis/Opus and the other formats of libsndfile (for local folders).
public final class SndFileDecoder: AudioDecoder {
    public let sampleRate: Int
    public let channelCount: Int
    public let frameCount: Int64?
    private let file: OpaquePointer
    private let path: String

    public init(path: String) throws(AudioDecoderError) {
        self.path = path
        if let failure = csf_load() { throw .unsupported(path: path, reason: String(cString: failure)) }
        var info = SF_INFO()
        guard let file = csf_open(path, Int32(SFM_READ), &info) else {
            throw .invalid(path: path, reason: String(cString: csf_strerror(nil)))
        }
        self.file = file
        do {
            try DecodeLimits.checkFormat(rate: Int(info.samplerate), channels: Int(info.channels), path: path)
        } catch {
            csf_close(file)
            throw error
        }
        sampleRate = Int(info.samplerate)
        channelCount = Int(info.channels)
        frameCount = DecodeLimits.announcedFrames(Int64(info.frames))
        // Integer PCM is read as float in [-1, 1], without clipping surprises.
        csf_command(file, Int32(SFC_SET_NORM_FLOAT), nil, Int32(SF_TRUE))
    }

    deinit { csf_close(file) }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        let got = csf_readf_float(file, buffer, sf_count_t(maxFrames))
        if got < 0 || (got == 0 && csf_error(file) != 0) {
            throw .decodeFailed(path: path, reason: String(cString: csf_strerror(file)))
        }
        return Int(got)
    }

    public func seek(toFrame frame: Int64) throws(AudioDecoderError) {
        guard csf_seek(file, sf_count_t(frame), SEEK_SET) >= 0 else {
            throw .decodeFailed(path: path, reason: "seek to frame \(frame): " + String(cString: csf_strerror(file)))
        }
    }
}
