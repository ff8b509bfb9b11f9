import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// The WAV sink's file is whole at every moment: its header's sizes hold every frame written so far, read while
/// the sink is still open (the service's fallback file lives as long as the process and is never closed).
final class WAVFileSinkTests: XCTestCase {
    func testTheHeaderHoldsEveryFrameWrittenWhileTheFileIsStillOpen() throws {
        let path = Fixtures.temporaryDirectory("wav-sink") + "/open.wav"
        let sink = try WAVFileSink(path: path, sampleRate: 44100, format: .s16)
        let block = [Float](repeating: 0.25, count: 2 * 441)
        for written in 1...7 {
            try block.withUnsafeBufferPointer { try sink.write($0.baseAddress!, frames: 441) }
            let wav = try WAVFile(path: path)
            XCTAssertEqual(wav.rate, 44100)
            XCTAssertEqual(wav.data.count, written * 441 * 4, "after \(written) writes, read before any close")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let riff = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            XCTAssertEqual(riff, bytes.count - 8, "the RIFF size is the file's")
        }
        withExtendedLifetime(sink) {}
    }
}
