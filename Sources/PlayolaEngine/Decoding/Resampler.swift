import CSoxr

/// Converts interleaved stereo Float32 from a file's rate to the mix rate with libsoxr, at 16-bit quality by
/// default: the cheapest recipe whose error stays below 16-bit output's quantisation noise through 15 kHz
/// (and under 0.001 dB of gain at 18 kHz), for the CPU of soxr's 20-bit "HQ" (ResamplerQualityTests).
///
/// The ratio is a fixed rational, so output frame `k·(out/g)` lines up exactly with input frame
/// `k·(in/g)`: starting a fresh resampler on such a grid point reproduces a continuous conversion
/// once the filter has filled (see `DecodePipeline` for how joins use this).
public final class Resampler {
    public let inputRate: Int
    public let outputRate: Int
    private let handle: soxr_t

    /// soxr's quality recipes (soxr.h), cheapest first.
    public enum Quality: UInt, Sendable, CaseIterable {
        case low = 1, medium = 2, bits16 = 3, bits20 = 4, bits28 = 6
    }

    public init(from inputRate: Int, to outputRate: Int, channels: Int = 2, quality: Quality = .bits16) throws(AudioDecoderError) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        if let failure = csoxr_load() {
            throw .unsupported(path: "", reason: "resampling \(inputRate) → \(outputRate) Hz: \(String(cString: failure))")
        }
        var error: soxr_error_t?
        var io = csoxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = csoxr_quality_spec(quality.rawValue, 0)
        guard let handle = csoxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, &io, &quality, nil),
              error == nil else {
            throw .unsupported(path: "", reason: "resampling \(inputRate) → \(outputRate) Hz: \(error.map { String(cString: $0) } ?? "?")")
        }
        self.handle = handle
    }

    deinit { csoxr_delete(handle) }

    /// Feeds `inputFrames` (nil: end of input, flush) and writes up to `maxOutput` frames.
    /// Returns (input frames consumed, output frames written).
    public func process(
        _ input: UnsafePointer<Float>?, inputFrames: Int, into output: UnsafeMutablePointer<Float>, maxOutput: Int
    ) -> (consumed: Int, produced: Int) {
        var consumed = 0
        var produced = 0
        _ = csoxr_process(handle, input, input == nil ? 0 : inputFrames, &consumed, output, maxOutput, &produced)
        return (consumed, produced)
    }

    /// The greatest common divisor of the two rates: conversions align every `inputRate/g` input frames.
    public var gridInput: Int64 { Int64(inputRate / gcd(inputRate, outputRate)) }
    public var gridOutput: Int64 { Int64(outputRate / gcd(inputRate, outputRate)) }
}

func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
