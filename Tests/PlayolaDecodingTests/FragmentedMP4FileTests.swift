import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Fragmented `.m4a` files, as ffmpeg writes them for streaming: all samples in movie fragments
/// (`-movflags frag_keyframe+empty_moov`), or the first second in `moov`'s table and the rest in fragments
/// (`-frag_duration 1000000`). Both play whole, as the same audio unfragmented does, and seek exactly.
/// ffmpeg writes no edit list into a fragmented file, so its priming is unknown there and the customary
/// 2112 frames are dropped, as for any file that does not say: 1088 more than ffmpeg's 1024.
final class FragmentedMP4FileTests: XCTestCase {
    func fixture(_ name: String, _ flags: [String]) throws -> String {
        let wave = "0.25*sin(2*PI*440*t)"
        return try Fixtures.made(name, ffmpeg: ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=\(wave)|\(wave):s=44100:d=5",
                                                "-c:a", "aac", "-b:a", "128k"] + flags + ["-f", "mp4"])
    }

    func decodeAll(_ path: String, from frame: Int64 = 0) throws -> [Float] {
        let decoder = try openAudioFile(path: path)
        if frame > 0 { try decoder.seek(toFrame: frame) }
        var left: [Float] = []
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * 2)
        defer { output.deallocate() }
        while true {
            let frames = try decoder.read(into: output, maxFrames: 4096)
            if frames == 0 { break }
            for index in 0..<frames { left.append(output[index * decoder.channelCount]) }
        }
        return left
    }

    func testFragmentedFilesPlayWholeAndSeekAsTheUnfragmentedOneDoes() throws {
        let plain = try decodeAll(try fixture("plain.m4a", []))
        XCTAssertEqual(plain.count, 5 * 44100)
        for (name, flags) in [("empty-moov.m4a", ["-movflags", "frag_keyframe+empty_moov"]), ("frag-1s.m4a", ["-frag_duration", "1000000"])] {
            let path = try fixture(name, flags)
            let samples = try decodeAll(path)
            let unsaid = 2112 - 1024
            XCTAssertEqual(samples.count, plain.count - unsaid, "\(name): every frame after the customary priming")
            let analysis = SignalAnalysis(samples: samples, rate: 44100)
            for second in 0..<4 {
                XCTAssertEqual(analysis.amplitude(of: 440, windowStart: second * 44100 + 22050), Fixtures.amplitude, accuracy: 0.02, "\(name) at \(second).5 s")
            }
            let expected = Array(plain[unsaid...])
            let firstDifference = samples.indices.first { samples[$0] != expected[$0] }
            XCTAssertNil(firstDifference, "\(name): the same frames as unfragmented (same encoder, same packets)")
            let sought = try decodeAll(path, from: 3 * 44100 + 17)
            XCTAssertTrue(sought == Array(plain[(3 * 44100 + 17 + unsaid)...]), "\(name): a seek lands on the exact frame")
        }
    }

    /// A fragmented file cut in its last fragment plays to the cut and is named truncated, as an
    /// unfragmented one is.
    func testACutFragmentedFileIsNamedTruncated() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: try fixture("empty-moov.m4a", ["-movflags", "frag_keyframe+empty_moov"])))
        let cut = Fixtures.temporaryDirectory("frag") + "/cut.m4a"
        try whole.prefix(whole.count - 20000).write(to: URL(fileURLWithPath: cut))
        XCTAssertThrowsError(try decodeAll(cut)) { error in
            XCTAssertTrue("\(error)".contains("truncated"), "\(error)")
        }
    }
}
