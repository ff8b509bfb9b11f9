import PlayolaEngine

/// Keeps every frame the engine writes, as Float32, for analysis.
final class CaptureSink: AudioSink {
    let sampleRate: Int
    private(set) var samples: [Float] = []

    init(sampleRate: Int = 48000) { self.sampleRate = sampleRate }

    func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        self.samples.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
    }

    func drain() throws(AudioSinkError) {}

    var frameCount: Int { samples.count / 2 }

    /// The left channel (the fixtures' channels are identical).
    var left: [Float] { stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }
}
