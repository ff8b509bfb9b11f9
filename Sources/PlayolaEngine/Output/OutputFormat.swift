/// What an opened output negotiated: its rate and sample format (ALSA's hw params), for `playola status`
/// and the benchmarks.
public struct OutputFormat: Sendable, Equatable, CustomStringConvertible {
    public let rate: Int
    /// nil for a sink that writes no samples (a null sink).
    public let format: SampleFormat?

    public init(rate: Int, format: SampleFormat?) {
        self.rate = rate
        self.format = format
    }

    /// One integer, so the render thread can publish it through an atomic when a device opens (0: none).
    package var packed: Int {
        let index = format.flatMap { SampleFormat.allCases.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
        return max(0, rate) << 4 | index
    }

    package init?(packed: Int) {
        guard packed > 0 else { return nil }
        let index = packed & 0xF
        rate = packed >> 4
        format = index > 0 && index <= SampleFormat.allCases.count ? SampleFormat.allCases[index - 1] : nil
    }

    /// `48000 Hz, s32`.
    public var description: String { "\(rate) Hz" + (format.map { ", \($0.rawValue)" } ?? "") }
}
