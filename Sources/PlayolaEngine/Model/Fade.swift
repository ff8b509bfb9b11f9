/// A gain change of a spin: from `atMS` (milliseconds from the file's start) the gain ramps to `toVolume`.
public struct Fade: Codable, Sendable, Equatable {
    public var atMS: Int
    public var toVolume: Float

    public init(atMS: Int, toVolume: Float) {
        self.atMS = atMS
        self.toVolume = toVolume
    }
}
