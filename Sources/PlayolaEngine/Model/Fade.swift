/// A gain change of a spin: from `atMS` (milliseconds from the file's start) the gain ramps to `toVolume`.
public struct Fade: Codable, Sendable, Equatable {
    public var atMS: Int
    public var toVolume: Float

    /// Clamped into the file (0...AudioBlock.maximumMS) and the gain range (0...1), so a schedule's
    /// `atMS` of Int64.max or a volume of 1e30 is a fade at the end or to full volume, not a trap or a blast.
    public init(atMS: Int, toVolume: Float) {
        self.atMS = Fade.clamped(atMS)
        self.toVolume = Fade.gain(toVolume)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(atMS: try container.clampedMilliseconds(.atMS, in: 0...AudioBlock.maximumMS), toVolume: try container.gain(.toVolume))
    }

    enum CodingKeys: String, CodingKey { case atMS, toVolume }

    /// A time in the file: 0...AudioBlock.maximumMS.
    static func clamped(_ ms: Int) -> Int { min(max(ms, 0), AudioBlock.maximumMS) }

    /// A gain from outside made a gain: 0...1, and 0 for NaN.
    static func gain(_ value: Float) -> Float {
        value.isNaN ? 0 : min(max(value, 0), 1)
    }
}
