import PlayolaModel

/// A spin the live engine should play, with its file once it is in the cache (nil: still downloading —
/// real-time playback never waits: the spin joins late when its file arrives).
public struct ProgramEntry: Sendable, Equatable {
    public var spin: Spin
    public var file: String?

    public init(spin: Spin, file: String?) {
        self.spin = spin
        self.file = file
    }
}
