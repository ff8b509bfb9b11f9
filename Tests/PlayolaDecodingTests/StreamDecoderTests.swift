import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// The stream decoders on their own: bytes arrive in pieces of any size, after junk or mid-frame, and
/// the audio that comes out is the same; bytes that are not audio are named, not played.
final class StreamDecoderTests: XCTestCase {
    /// Decodes `bytes` arriving in pieces of `pieces` sizes (cycled), reading between arrivals as a live
    /// decode thread does. Returns the left channel.
    func decode(_ bytes: [UInt8], format: StreamFormat, pieces: [Int]) throws -> (samples: [Float], rate: Int) {
        let buffer = StreamBuffer()
        let decoder = try openStreamDecoder(format, buffer: buffer, name: "test")
        var offset = 0
        var piece = 0
        var left: [Float] = []
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * 2)
        defer { output.deallocate() }
        while !decoder.hasEnded {
            if offset < bytes.count {
                let count = min(pieces[piece % pieces.count], bytes.count - offset)
                bytes[offset..<offset + count].withUnsafeBytes { buffer.append($0) }
                offset += count
                piece += 1
                if offset == bytes.count { buffer.finish() }
            }
            guard try decoder.prepare() else { continue }
            while true {
                let frames = try decoder.read(into: output, maxFrames: 4096)
                if frames == 0 { break }
                for frame in 0..<frames { left.append(output[frame * decoder.channelCount]) }
            }
        }
        return (left, decoder.sampleRate)
    }

    /// Decodes the file at `path` as a stream arriving whole and in odd pieces: the same samples bit for bit,
    /// at `rate`, the tone there throughout. Returns them.
    func assertPiecesDecodeAlike(
        _ path: String, format: StreamFormat, rate: Int, frequency: Double, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [Float] {
        let encoded = try bytes(path)
        let whole = try decode(encoded, format: format, pieces: [encoded.count])
        let pieces = try decode(encoded, format: format, pieces: [1, 7, 417, 3, 1500, 2, 99, 4096])
        XCTAssertEqual(whole.rate, rate, file: file, line: line)
        XCTAssertTrue(whole.samples == pieces.samples, "bit-identical whatever the pieces", file: file, line: line)
        assertTone(whole.samples, rate: whole.rate, frequency: frequency, file: file, line: line)
        return whole.samples
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func assertTone(_ samples: [Float], rate: Int, frequency: Double, file: StaticString = #filePath, line: UInt = #line) {
        let analysis = SignalAnalysis(samples: samples, rate: Double(rate))
        let window = rate / 100
        let levels = stride(from: rate / 10, to: samples.count - rate / 10, by: window).map { analysis.amplitude(of: frequency, windowStart: $0) }
        XCTAssertGreaterThan(levels.count, 100, file: file, line: line)
        XCTAssertEqual(levels.min() ?? 0, Fixtures.amplitude, accuracy: 0.02, file: file, line: line)
        XCTAssertEqual(levels.max() ?? 0, Fixtures.amplitude, accuracy: 0.02, file: file, line: line)
    }

    func testMP3PiecesOfAnySizeDecodeToTheSameSamples() throws {
        _ = try assertPiecesDecodeAlike(try Fixtures.tone(600, seconds: 3, rate: 44100, codec: .mp3), format: .mp3, rate: 44100, frequency: 600)
    }

    func testAACPiecesOfAnySizeDecodeToTheSameSamples() throws {
        _ = try assertPiecesDecodeAlike(try Fixtures.tone(900, seconds: 3, rate: 48000, codec: .aac), format: .aac, rate: 48000, frequency: 900)
    }

    /// A listener joins a broadcast mid-frame, after junk: both decoders find the next frame and play on.
    func testJoiningMidFrameAfterJunkResyncs() throws {
        var generator = SystemRandomNumberGenerator()
        let junk = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let mp3 = try bytes(try Fixtures.tone(600, seconds: 3, rate: 44100, codec: .mp3))
        let mp3Joined = try decode(junk + mp3.dropFirst(1234), format: .mp3, pieces: [333])
        assertTone(mp3Joined.samples, rate: mp3Joined.rate, frequency: 600)
        let aac = try bytes(try Fixtures.tone(900, seconds: 3, rate: 48000, codec: .aac))
        let aacJoined = try decode(junk + aac.dropFirst(1234), format: .aac, pieces: [333])
        assertTone(aacJoined.samples, rate: aacJoined.rate, frequency: 900)
        let whole = try decode(aac, format: .aac, pieces: [4096])
        XCTAssertGreaterThan(aacJoined.samples.count, whole.samples.count - 48000 / 10, "only the cut frames are lost")
    }

    /// ISO/IEC 14496-3's sampling_frequency_index runs to 12 (7350 Hz); 13 and 14 are reserved. The file reader and
    /// the stream framer share one header parser: both take index 12 as ADTS and name it as a rate libfaad2 does not
    /// decode (its table stops at 11), and neither takes index 13 for a frame at all.
    func testADTSRateIndexTwelveIsNamedAndThirteenIsNoFrame() throws {
        let path = try Fixtures.tone(1000, seconds: 3, rate: 7350, codec: .aac)
        let aac = try bytes(path)
        XCTAssertEqual((aac[2] >> 2) & 0x0F, 12, "the fixture's frames say 7350 Hz by index 12")
        let unsupported = AudioDecoderError.unsupported(path: "test", reason: "7350 Hz (ADTS sampling index 12), which libfaad2 does not decode")
        XCTAssertThrowsError(try decode(aac, format: .aac, pieces: [777])) { XCTAssertEqual($0 as? AudioDecoderError, unsupported) }
        XCTAssertThrowsError(try openAudioFile(path: path)) {
            XCTAssertEqual($0 as? AudioDecoderError, .unsupported(path: path, reason: "7350 Hz (ADTS sampling index 12), which libfaad2 does not decode"))
        }

        var reserved = aac
        var offset = 0
        while offset + 7 <= reserved.count {
            reserved[offset + 2] = reserved[offset + 2] & ~0x3C | 13 << 2
            offset += Int(reserved[offset + 3] & 0x03) << 11 | Int(reserved[offset + 4]) << 3 | Int(reserved[offset + 5] >> 5)
        }
        XCTAssertThrowsError(try decode(reserved + [UInt8](repeating: 0, count: 70 << 10), format: .aac, pieces: [4096])) { error in
            XCTAssertTrue("\(error)".contains("no AAC (ADTS) frame in the first 64 KiB"), "\(error)")
        }
        let reservedPath = Fixtures.temporaryDirectory("adts-reserved") + "/reserved.aac"
        try Data(reserved).write(to: URL(fileURLWithPath: reservedPath))
        XCTAssertThrowsError(try openAudioFile(path: reservedPath)) { error in
            XCTAssertEqual(error as? AudioDecoderError, .invalid(path: reservedPath, reason: "bad ADTS header at byte 0"))
        }
    }

    func testBytesThatAreNotAudioAreNamed() throws {
        // Fixed noise (xorshift64 from one seed): random bytes from the system's generator held a chain of
        // plausible MPEG 2.5 frames once in a full run ("changed format to 12000 Hz"), so the test could
        // fail by chance.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<(200 << 10)).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 32)
        }
        XCTAssertThrowsError(try decode(noise, format: .mp3, pieces: [8192])) { error in
            XCTAssertTrue("\(error)".contains("no MPEG audio frame in the first 64 KiB"), "\(error)")
        }
        XCTAssertThrowsError(try decode(noise, format: .aac, pieces: [8192])) { error in
            XCTAssertTrue("\(error)".contains("no AAC (ADTS) frame in the first 64 KiB"), "\(error)")
        }
        XCTAssertThrowsError(try decode(noise, format: .ogg, pieces: [8192])) { error in
            XCTAssertTrue("\(error)".contains("no Ogg page in the first 64 KiB"), "\(error)")
        }
    }

    /// The buffer between the network and the decoder is bounded: a consumer that stopped loses the
    /// oldest bytes, never memory without end.
    func testTheStreamBufferKeepsTheNewestBytesWithinItsCapacity() {
        let buffer = StreamBuffer(capacity: 1000)
        for value in 0..<30 { [UInt8](repeating: UInt8(value), count: 100).withUnsafeBytes { buffer.append($0) } }
        XCTAssertEqual(buffer.available, 1000)
        XCTAssertEqual(buffer.bytesDropped, 2000)
        XCTAssertEqual(buffer.peek(1), [20], "the oldest left is the 21st piece")
    }
}
