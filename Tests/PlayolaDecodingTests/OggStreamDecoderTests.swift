import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Ogg Vorbis and Ogg Opus streams (Icecast's Ogg mounts) through libogg with libvorbis or libopus: bytes in
/// pieces of any size, chains of tracks with their tags as titles, and streams that are not what they say.
extension StreamDecoderTests {
    func testVorbisPiecesOfAnySizeDecodeToTheSameSamples() throws {
        let samples = try assertPiecesDecodeAlike(try Fixtures.tone(700, seconds: 3, rate: 44100, codec: .ogg), format: .ogg, rate: 44100, frequency: 700)
        XCTAssertEqual(samples.count, 3 * 44100, "every frame, no more: Vorbis ends exactly")
    }

    func testOpusPiecesOfAnySizeDecodeToTheSameSamplesAt48kHz() throws {
        let samples = try assertPiecesDecodeAlike(try Fixtures.tone(1000, seconds: 3, rate: 48000, codec: .opus), format: .ogg, rate: 48000, frequency: 1000)
        XCTAssertEqual(samples.count, 3 * 48000, "the pre-skip dropped at the start, the padding at the end")
        XCTAssertLessThan(onset(samples), 48 * 3, "the pre-skip's frames are dropped: the tone starts within 3 ms")
    }

    /// Icecast relays a source's Ogg chain as it comes: each track a new logical stream whose tags name it.
    func testAChainPlaysThroughItsTracksAndTheirTagsBecomeTheTitle() throws {
        for codec in [Fixtures.Codec.ogg, .opus] {
            let rate = 48000
            let first = try Fixtures.tone(500, seconds: 2, rate: rate, codec: codec, name: "chain-a.\(codec)", tags: ["title=First Song", "artist=Band A"])
            let second = try Fixtures.tone(800, seconds: 2, rate: rate, codec: codec, name: "chain-b.\(codec)", tags: ["title=Second Song"])
            let chain = try bytes(first) + bytes(second)
            let buffer = StreamBuffer()
            let announced = Mutex<[String]>([])
            let decoder = OggStreamDecoder(buffer: buffer, name: "chain") { tags in announced.withLock { $0.append(tags.text ?? "") } }
            var left: [Float] = []
            var titles: [(frame: Int, title: String?)] = []
            let output = UnsafeMutablePointer<Float>.allocate(capacity: 1024 * 2)
            defer { output.deallocate() }
            for start in stride(from: 0, to: chain.count, by: 999) {
                chain[start..<min(start + 999, chain.count)].withUnsafeBytes { buffer.append($0) }
                if start + 999 >= chain.count { buffer.finish() }
                guard try decoder.prepare() else { continue }
                while true {
                    let frames = try decoder.read(into: output, maxFrames: 1024)
                    if titles.last?.title != decoder.tags.text { titles.append((left.count, decoder.tags.text)) }
                    if frames == 0 { break }
                    for frame in 0..<frames { left.append(output[frame * 2]) }
                }
            }
            XCTAssertTrue(decoder.hasEnded)
            XCTAssertEqual(titles.map(\.title), ["Band A - First Song", "Second Song"], "\(codec)")
            XCTAssertEqual(announced.withLock { $0 }, ["Band A - First Song", "Second Song"], "\(codec): each title announced once, in order")
            XCTAssertEqual(decoder.tags, StreamTags(artist: nil, title: "Second Song"))
            let change = try XCTUnwrap(titles.last?.frame)
            XCTAssertEqual(Double(change) / Double(rate), 2, accuracy: 0.03, "\(codec): the title changes where the second track starts")
            let analysis = SignalAnalysis(samples: left, rate: Double(rate))
            XCTAssertEqual(analysis.amplitude(of: 500, windowStart: rate / 2), Fixtures.amplitude, accuracy: 0.02, "\(codec)")
            XCTAssertEqual(analysis.amplitude(of: 800, windowStart: change + rate / 2), Fixtures.amplitude, accuracy: 0.02, "\(codec)")
            XCTAssertEqual(Double(left.count) / Double(rate), 4, accuracy: 0.03, "\(codec): both tracks, whole")
        }
    }

    /// A new logical stream that changes the rate cannot go on in the same voice: it is named, and the
    /// player's reconnect opens a decoder at the new rate.
    func testAChainLinkAtAnotherRateIsNamed() throws {
        let first = try Fixtures.tone(500, seconds: 1, rate: 44100, codec: .ogg)
        let second = try Fixtures.tone(500, seconds: 1, rate: 32000, codec: .ogg)
        XCTAssertThrowsError(try decode(try bytes(first) + bytes(second), format: .ogg, pieces: [4096])) { error in
            XCTAssertEqual("\(error)", "chain: unsupported: the stream changed format to 32000 Hz, 2 channels".replacingOccurrences(of: "chain", with: "test"))
        }
    }

    func testOggOfAnotherCodecOrMoreChannelsIsNamed() throws {
        let flac = try Fixtures.made("tone.oga", ffmpeg: ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=440:d=1", "-c:a", "flac", "-f", "ogg"])
        XCTAssertThrowsError(try decode(try bytes(flac), format: .ogg, pieces: [4096])) { error in
            XCTAssertEqual("\(error)", "test: unsupported: an Ogg stream of FLAC (Vorbis and Opus play)")
        }
        let surround = try Fixtures.made("surround.ogg", ffmpeg: ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=440:d=1", "-ac", "6",
                                                                  "-c:a", "libvorbis", "-f", "ogg"])
        XCTAssertThrowsError(try decode(try bytes(surround), format: .ogg, pieces: [4096])) { error in
            XCTAssertEqual("\(error)", "test: unsupported: a Vorbis stream of 6 channels (mono and stereo play)")
        }
    }

    /// Bytes lost in the middle (a bounded buffer that dropped its oldest, a cut): libogg finds the next page
    /// and the tone goes on.
    func testLostBytesInTheMiddleResync() throws {
        let ogg = try bytes(try Fixtures.tone(700, seconds: 12, rate: 44100, codec: .ogg))
        let cut = Array(ogg[..<(ogg.count / 3)]) + Array(ogg[(ogg.count / 3 + 2000)...])
        let decoded = try decode(cut, format: .ogg, pieces: [777])

        XCTAssertGreaterThan(Double(decoded.samples.count) / 44100, 10, "only the pages the cut touched are lost")
        let analysis = SignalAnalysis(samples: decoded.samples, rate: 44100)
        XCTAssertEqual(analysis.amplitude(of: 700, windowStart: decoded.samples.count - 44100), Fixtures.amplitude, accuracy: 0.02)
    }

    /// The first frame louder than a tenth of the tone.
    private func onset(_ samples: [Float]) -> Int {
        samples.firstIndex { abs($0) > Float(Fixtures.amplitude) / 10 } ?? samples.count
    }
}
