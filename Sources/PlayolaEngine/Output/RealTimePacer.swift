import Glibc
import PlayolaSupport

/// Makes a sink that takes audio as fast as it comes (a WAV file) behave like a device: writes block
/// to keep real time, with `buffer` seconds in hand. For the demo without a sound card, and tests.
public final class RealTimePacer: AudioSink {
    public let wrapped: any AudioSink
    public let buffer: Double
    private var started: Double?
    private var frames: Int64 = 0

    public init(_ sink: any AudioSink, buffer: Double = 0.2) {
        wrapped = sink
        self.buffer = buffer
    }

    public var sampleRate: Int { wrapped.sampleRate }
    public var sampleFormat: SampleFormat? { wrapped.sampleFormat }

    public func write(_ samples: UnsafePointer<Float>, frames count: Int) throws(AudioSinkError) {
        try wrapped.write(samples, frames: count)
        let now = monotonicSeconds()
        if started == nil { started = now }
        frames += Int64(count)
        let ahead = Double(frames) / Double(sampleRate) - (now - started!) - buffer
        if ahead > 0 { usleep(UInt32(ahead * 1_000_000)) }
    }

    public func drain() throws(AudioSinkError) { try wrapped.drain() }

    public func delay() -> Int {
        guard let started else { return 0 }
        let played = (monotonicSeconds() - started) * Double(sampleRate)
        return max(0, Int(Double(frames) - played))
    }
}
