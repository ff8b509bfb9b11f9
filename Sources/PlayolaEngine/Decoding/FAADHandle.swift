import CFAAD

/// One libfaad2 decoder, set up the one way the engine decodes AAC: float output, 5.1 folded to stereo,
/// HE-AAC's implicit SBR decoded at the doubled rate. Files (`AACDecoder`) and streams (`ADTSStreamDecoder`)
/// both decode through it.
final class FAADHandle {
    private let handle: NeAACDecHandle
    private let name: String
    /// The format `initialize` found.
    private(set) var sampleRate = 0
    private(set) var channelCount = 0
    /// Why the last unit `decode` refused was damaged.
    private(set) var lastError = ""

    /// One decoded access unit: interleaved samples, faad2's until the next call, and their format.
    struct Frame {
        let samples: UnsafeMutablePointer<Float>
        let frames: Int
        let channels: Int
        let sampleRate: Int
    }

    init(name: String) throws(AudioDecoderError) {
        guard let handle = NeAACDecOpen() else { throw .cannotOpen(path: name, reason: "NeAACDecOpen failed") }
        self.handle = handle
        self.name = name
        let config = NeAACDecGetCurrentConfiguration(handle)!
        config.pointee.outputFormat = UInt8(FAAD_FMT_FLOAT)
        config.pointee.downMatrix = 1
        config.pointee.dontUpSampleImplicitSBR = 0
        NeAACDecSetConfiguration(handle, config)
    }

    deinit { NeAACDecClose(handle) }

    /// Sets the decoder up from an MP4's AudioSpecificConfig and learns the output format.
    func initialize(config: [UInt8]) throws(AudioDecoderError) {
        var config = config, rate: UInt = 0, channels: UInt8 = 0
        let status = NeAACDecInit2(handle, &config, UInt(config.count), &rate, &channels)
        try accept(status: Int(status), rate: rate, channels: channels, adtsRateIndex: nil)
    }

    /// Sets the decoder up from the ADTS frame of `length` bytes at `bytes[offset...]`.
    func initialize(frameIn bytes: inout [UInt8], at offset: Int, length: Int) throws(AudioDecoderError) {
        var rate: UInt = 0, channels: UInt8 = 0
        let length = max(0, min(length, bytes.count - offset))
        let status = bytes.withUnsafeMutableBufferPointer { NeAACDecInit(handle, $0.baseAddress! + offset, UInt(length), &rate, &channels) }
        try accept(status: status, rate: rate, channels: channels, adtsRateIndex: length >= 3 ? (bytes[offset + 2] >> 2) & 0x0F : nil)
    }

    private func accept(status: Int, rate: UInt, channels: UInt8, adtsRateIndex: UInt8?) throws(AudioDecoderError) {
        guard status >= 0, rate > 0, channels > 0 else {
            // faad2's rate table stops at index 11 (8000 Hz): ISO's index 12 (7350 Hz), which ADTSHeader accepts,
            // is refused here by name rather than as a damaged stream.
            if adtsRateIndex == 12 {
                throw .unsupported(path: name, reason: "7350 Hz (ADTS sampling index 12), which libfaad2 does not decode")
            }
            throw .invalid(path: name, reason: "the AAC decoder rejected the stream configuration")
        }
        (sampleRate, channelCount) = (Int(rate), Int(channels))
    }

    /// Decodes the access unit of `length` bytes at `bytes[offset...]`; nil for a damaged unit (`lastError` says why).
    @inline(__always)
    func decode(_ bytes: inout [UInt8], at offset: Int, length: Int) -> Frame? {
        var info = NeAACDecFrameInfo()
        let samples = bytes.withUnsafeMutableBufferPointer { NeAACDecDecode(handle, &info, $0.baseAddress! + offset, UInt(length)) }
        let channels = Int(info.channels)
        let frames = Int(info.samples) / max(1, channels)
        guard info.error == 0, let samples, frames > 0 else {
            lastError = String(cString: NeAACDecGetErrorMessage(info.error))
            return nil
        }
        return Frame(samples: samples.assumingMemoryBound(to: Float.self), frames: frames, channels: channels, sampleRate: Int(info.samplerate))
    }

    /// Forgets the overlap state before decoding from `unit` after a seek.
    func resetAfterSeek(toUnit unit: Int) { NeAACDecPostSeekReset(handle, Int(unit)) }
}
