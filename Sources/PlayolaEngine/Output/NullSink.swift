/// Discards the mix as fast as it comes; counts it. For benchmarks and dry runs.
public final class NullSink: AudioSink {
    public let sampleRate: Int
    public private(set) var framesWritten: Int64 = 0

    public init(sampleRate: Int) { self.sampleRate = sampleRate }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        framesWritten += Int64(frames)
    }

    public func drain() throws(AudioSinkError) {}
}
