import Foundation
import PlayolaEngine
import Synchronization

/// A sink that takes audio at the pace of a real device (it sleeps as a blocking ALSA write would) and
/// keeps it for analysis: live playback is tested against a paced sink, never an unpaced one.
package final class PacedSink: AudioSink, @unchecked Sendable {
    // @unchecked Sendable: `samples` is written by the render thread and read by the test only through
    // the Mutex.
    package let sampleRate: Int
    private let captured = Mutex<[Float]>([])
    private var started: Double?
    private var frames: Int64 = 0

    package init(sampleRate: Int = 48000) { self.sampleRate = sampleRate }

    package func write(_ samples: UnsafePointer<Float>, frames count: Int) throws(AudioSinkError) {
        let now = monotonicSeconds()
        if started == nil { started = now }
        frames += Int64(count)
        captured.withLock { $0.append(contentsOf: UnsafeBufferPointer(start: samples, count: count * 2)) }
        // Stay ~50 ms ahead of real time, like a device buffer.
        let ahead = Double(frames) / Double(sampleRate) - (now - started!) - 0.05
        if ahead > 0 { usleep(UInt32(ahead * 1e6)) }
    }

    package func drain() throws(AudioSinkError) {}
    package func delay() -> Int { Int(Double(sampleRate) * 0.05) }

    package var left: [Float] { captured.withLock { samples in stride(from: 0, to: samples.count, by: 2).map { samples[$0] } } }
    var frameCount: Int { captured.withLock { $0.count / 2 } }
}
