/// What a playable file can claim. Every number a file states about itself is checked against these before it
/// sizes an allocation or enters arithmetic: a hostile file gets a named error, not gigabytes or a trap.
package enum DecodeLimits {
    /// Rates a radio plays (8 kHz speech to 384 kHz masters). Below, the resampler's ratio (and its memory)
    /// explodes: a WAV that claims 1 Hz would be stretched 48 000 times.
    static let sampleRates = 4000...384_000
    static let channelCounts = 1...8
    /// Frames a file may announce (about 265 days at 48 kHz): larger is a lie, treated as unknown, and keeps
    /// `frames × rate` far from Int64's limit wherever it is converted to another rate.
    static let maxAnnouncedFrames: Int64 = 1 << 40
    /// Access units in one track (24 h of AAC-LC at 48 kHz), on top of the file's size bounding them.
    static let maxUnits = 1 << 22
    /// Samples one movie fragment (`moof`, an HLS fMP4 segment) may describe: 1.5 h of AAC-LC at 48 kHz,
    /// where writers make fragments of a few seconds. A `trun` of no per-sample fields claims its count in 4
    /// bytes, so the count alone would drive the sample loop.
    static let maxFragmentSamples = 1 << 18
    /// `trun` boxes in one fragment: writers make one per track, or one per chunk of a few samples.
    static let maxFragmentRuns = 1 << 12
    /// An AAC access unit is at most 6144 bits per channel; 64 KiB covers 85 channels.
    static let maxUnitBytes: UInt32 = 1 << 16
    /// Output frames of one AAC access unit: 1024 for LC, 2048 for HE-AAC, 480–960 for the low-delay kinds.
    static let unitFrames: ClosedRange<Int64> = 120...8192

    package static func checkFormat(rate: Int, channels: Int, path: String) throws(AudioDecoderError) {
        guard sampleRates.contains(rate) else {
            throw .malformed(path: path, field: "sample rate", problem: "\(rate) Hz is outside \(sampleRates.lowerBound)–\(sampleRates.upperBound) Hz")
        }
        guard channelCounts.contains(channels) else {
            throw .malformed(path: path, field: "channels", problem: "\(channels) is outside \(channelCounts.lowerBound)–\(channelCounts.upperBound)")
        }
    }

    /// An announced length if it is plausible, else nil (unknown).
    static func announcedFrames(_ frames: Int64) -> Int64? {
        frames > 0 && frames <= maxAnnouncedFrames ? frames : nil
    }
}

extension Int64 {
    /// `self × multiplier / divisor` rounded toward zero, computed in 128 bits and saturated to Int64's range,
    /// for converting file-supplied durations between timescales. `divisor` must be positive.
    func scaled(by multiplier: Int64, over divisor: Int64) -> Int64 {
        precondition(divisor > 0)
        let negative = (self < 0) != (multiplier < 0)
        let product = magnitude.multipliedFullWidth(by: multiplier.magnitude)
        let divisor = UInt64(divisor)
        guard product.high < divisor else { return negative ? .min : .max }
        let quotient = divisor.dividingFullWidth(product).quotient
        if negative { return quotient > Int64.max.magnitude ? .min : -Int64(quotient) }
        return quotient > UInt64(Int64.max) ? .max : Int64(quotient)
    }
}
