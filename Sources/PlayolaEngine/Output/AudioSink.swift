import PlayolaSupport

/// Where the mix goes: an ALSA device, a WAV file, or nowhere. Frames are interleaved stereo Float32
/// at `sampleRate`; each sink converts to its own sample format.
public protocol AudioSink: AnyObject {
    var sampleRate: Int { get }
    /// The sample format the sink negotiated (what `playola status` and the benchmarks show); nil when it
    /// writes none (a null sink).
    var sampleFormat: SampleFormat? { get }
    /// Returns when the sink can take `frames` without blocking, when `wake` is signalled (the signal is
    /// consumed), or after about two periods of a device that takes nothing (the write then says what is
    /// wrong). The render thread waits here rather than in `write`, so a start from silence is acted on at
    /// once instead of after the device's next period.
    func awaitRoom(for frames: Int, orUntil wake: WakeEvent)
    /// Writes all `frames` frames, blocking as the device needs.
    func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError)
    /// Lets what was written play out (a file is completed).
    func drain() throws(AudioSinkError)
    /// Frames written but not yet heard.
    func delay() -> Int
    /// How many of the latest frames written the sink can still take back (`rewind`): queued, not yet heard.
    func rewindableFrames() -> Int
    /// Takes back up to `frames` of the latest frames written, so that the next write replaces them (a spin
    /// that starts while the device holds silence is heard at once, not after it); returns how many.
    func rewind(frames: Int) -> Int
}

extension AudioSink {
    /// A file or null sink always has room; one that paces itself does so in `write`.
    public func awaitRoom(for frames: Int, orUntil wake: WakeEvent) {}
    /// A file or null sink "plays" what it is given at once.
    public func delay() -> Int { 0 }
    /// What a file or null sink was given is written already.
    public func rewindableFrames() -> Int { 0 }
    public func rewind(frames: Int) -> Int { 0 }
    public var sampleFormat: SampleFormat? { nil }
}

/// What a caller decides on when a sink fails.
public enum AudioSinkError: Error, Equatable, CustomStringConvertible {
    /// The device is not there (unplugged, never plugged, or the name is wrong).
    case deviceGone(device: String, reason: String)
    /// The device cannot play what we need (rate, channels, format).
    case unsupported(device: String, reason: String)
    /// The device was suspended and could not be resumed.
    case suspended(device: String)
    /// Underruns that recovery could not clear.
    case xrun(device: String)
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .deviceGone(let device, let reason): "audio device \(device) is not available: \(reason)"
        case .unsupported(let device, let reason): "audio device \(device) cannot play: \(reason)"
        case .suspended(let device): "audio device \(device) is suspended and did not resume"
        case .xrun(let device): "audio device \(device) keeps underrunning"
        case .io(let path, let reason): "\(path): \(reason)"
        }
    }
}
