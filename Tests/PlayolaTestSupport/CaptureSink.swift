import PlayolaEngine

/// Keeps every frame the engine writes, as Float32, for analysis.
package final class CaptureSink: AudioSink {
    package let sampleRate: Int
    package private(set) var samples: [Float] = []

    package init(sampleRate: Int = 48000) { self.sampleRate = sampleRate }

    package func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        self.samples.append(contentsOf: UnsafeBufferPointer(start: samples, count: frames * 2))
    }

    package func drain() throws(AudioSinkError) {}

    package var frameCount: Int { samples.count / 2 }

    /// The left channel (the fixtures' channels are identical).
    package var left: [Float] { stride(from: 0, to: samples.count, by: 2).map { samples[$0] } }
}
