import Foundation
import PlayolaEngine

/// A stream decoder over a server that has sent `sent` frames so far of `signal` (interleaved stereo,
/// looped), and that ends the stream once `ended` is set and everything sent was read.
final class ServerSignal: StreamDecoder {
    let sampleRate: Int
    let channelCount = 2
    var sent: Int64 = 0
    var ended = false
    private(set) var taken: Int64 = 0
    let signal: [Float]

    init(rate: Int, signal: [Float]) {
        sampleRate = rate
        self.signal = signal
    }

    /// One period of a 400 Hz sine at amplitude 0.25, on both channels (`rate` a multiple of 400 Hz).
    static func sine(rate: Int) -> ServerSignal {
        ServerSignal(rate: rate, signal: (0..<rate / 400).flatMap { frame in
            let value = Float(0.25 * sin(2 * Double.pi * Double(frame) * 400 / Double(rate)))
            return [value, value]
        })
    }

    func prepare() throws(AudioDecoderError) -> Bool { true }
    var hasEnded: Bool { ended }

    func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        let count = Int(min(Int64(maxFrames), sent - taken))
        let frames = Int64(signal.count / 2)
        for index in 0..<count {
            let frame = Int((taken + Int64(index)) % frames)
            buffer[2 * index] = signal[2 * frame]
            buffer[2 * index + 1] = signal[2 * frame + 1]
        }
        taken += Int64(count)
        return count
    }
}
