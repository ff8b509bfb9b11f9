import Foundation
import PlayolaEngine
import Synchronization
import XCTest
import PlayolaTestSupport

/// Issue 26, fragmented MP4: movie fragments whose `trun` counts, durations and data offsets lie, after the
/// init section (`ftyp`, `moov` with `mvex`) of ffmpeg's HLS muxer, as a fragmented file and as an HLS media
/// segment behind that init section. Each ends in a named error, at once and in bounded memory.
final class HostileFragmentTests: XCTestCase {
    /// A real HLS init section and its first media segment (`styp`, `sidx`, `moof`, `mdat`).
    struct Source {
        var initSection: [UInt8]
        var trackID: UInt32
        var segment: [UInt8]
    }

    static func source() throws -> Source {
        let folder = Fixtures.directory + "/hostile-hls"
        if !FileManager.default.fileExists(atPath: folder + "/0.m4s") {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Fixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=440:d=2", "-ac", "1", "-ar", "48000",
                                        "-c:a", "aac", "-b:a", "32k", "-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1",
                                        "-hls_playlist_type", "vod", "-hls_fmp4_init_filename", "init.mp4",
                                        "-hls_segment_filename", folder + "/%d.m4s", folder + "/index.m3u8"])
        }
        let initSection = MP4Bytes(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/init.mp4"))))
        return Source(initSection: initSection.bytes, trackID: initSection.u32(at: initSection.field(["moov", "trak", "tkhd"], word: 3)),
                      segment: Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/0.m4s"))))
    }

    /// A `moof` of one `traf` for `track` whose `tfhd` gives every sample `duration` and `size`, with `runs`.
    static func moof(track: UInt32, duration: UInt32 = 1024, size: UInt32 = 1, runs: [[UInt8]]) -> [UInt8] {
        let tfhd = MP4Bytes.box("tfhd", MP4Bytes.words([0x02_0018, track, duration, size]))
        return MP4Bytes.box("moof", MP4Bytes.box("mfhd", MP4Bytes.words([0, 1])) + MP4Bytes.box("traf", tfhd + Array(runs.joined())))
    }

    /// A `trun` of `count` samples of the `tfhd`'s defaults; with `dataOffset`, they start there (from the `moof`).
    static func trun(count: UInt32, dataOffset: UInt32? = nil) -> [UInt8] {
        MP4Bytes.box("trun", MP4Bytes.words(dataOffset.map { [0x1, count, $0] } ?? [0, count]))
    }

    static func mdat(_ count: Int) -> [UInt8] { MP4Bytes.box("mdat", [UInt8](repeating: 0x21, count: count)) }

    /// `runs` runs of `count` samples of 1 byte, each from the start of the same 64 KB `mdat`.
    static func sharedBytes(_ source: Source, runs: Int, count: UInt32) -> [UInt8] {
        let trunBytes = 20
        let moofBytes = moof(track: source.trackID, runs: []).count + runs * trunBytes
        let run = trun(count: count, dataOffset: UInt32(moofBytes + 8))
        return moof(track: source.trackID, runs: Array(repeating: run, count: runs)) + mdat(1 << 16)
    }

    struct Case: Sendable {
        var name: String
        /// What the field named must contain, and the problem.
        var field: String
        var problem: String
        var fragments: @Sendable (Source) throws -> [UInt8]
        var initSection: @Sendable (Source) -> [UInt8] = { $0.initSection }
    }

    static let cases: [Case] = [
        // 520 runs of 2^22 samples of 2^32-1 ticks: the duration sum passed Int64 after 2^31 samples (a trap).
        Case(name: "trun durations past 2^63", field: "trun", problem: "4194304 samples") { source in
            moof(track: source.trackID, duration: 0xFFFF_FFFF, runs: Array(repeating: trun(count: 1 << 22), count: 520)) + mdat(1000)
        },
        // One run claims 2^28 samples in 4 bytes; the file holds 1000.
        Case(name: "trun of 2^28 samples", field: "trun", problem: "268435456 samples") { source in
            moof(track: source.trackID, runs: [trun(count: 1 << 28)]) + mdat(1000)
        },
        // 200 runs of 2^16 samples, all from the same 64 KB: 13 million samples listed (200 MB and more).
        Case(name: "runs sharing their bytes", field: "trun", problem: "add up past") { sharedBytes($0, runs: 200, count: 1 << 16) },
        // 1000 runs of 2^22 samples of no bytes: each sample loop ran on past the data (4 billion turns).
        Case(name: "runs of samples with no bytes", field: "trun", problem: "4194304 samples") { source in
            moof(track: source.trackID, size: 0, runs: Array(repeating: trun(count: 1 << 22), count: 1000)) + mdat(1000)
        },
        Case(name: "5000 runs in one fragment", field: "traf", problem: "trun boxes") { source in
            moof(track: source.trackID, runs: Array(repeating: trun(count: 1), count: 5000)) + mdat(5000)
        },
        // The moov's table ends 2^32 ticks short of 2^63, the fragments go on (a trap adding them).
        Case(name: "fragment durations past the table's", field: "trun", problem: "more than 2^63",
             fragments: { source in moof(track: source.trackID, duration: 0xFFFF_FFFF, runs: [trun(count: 3)]) + mdat(3) },
             initSection: { source in
                 var file = MP4Bytes(source.initSection)
                 file.replace(HostileFileTests.table("stts"), with: MP4Bytes.box("stts", MP4Bytes.words([0, 1, 0xFFFF_FFFF, 0x7FFF_FFFF])))
                 return file.bytes
             }),
    ]

    static let maxSeconds = 10.0
    static let maxPeakGrowthMB = 48.0

    func testHostileFragmentsInAFileAreNamedAtOnceInBoundedMemory() throws {
        let source = try Self.source()
        let folder = Fixtures.temporaryDirectory("hostile-fragments")
        for (index, hostile) in Self.cases.enumerated() {
            let path = folder + "/case-\(index).m4a"
            let bytes = hostile.initSection(source) + (try hostile.fragments(source))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            guard let outcome = Self.withDeadline(Self.maxSeconds, { HostileFileTests.openAndDecode(path) }) else {
                XCTFail("\(hostile.name): still reading after \(Self.maxSeconds) s")
                continue
            }
            let label = "\(hostile.name) (\(bytes.count) bytes): \(outcome.error.map { "\($0)" } ?? "decoded \(outcome.frames) frames")"
            print(String(format: "hostile fragment %-36@ %6.3f s %6.1f MB  %@", hostile.name as NSString, outcome.seconds, outcome.peakGrowthMB, label))
            XCTAssertLessThan(outcome.peakGrowthMB, Self.maxPeakGrowthMB, label)
            guard case .malformed(let errorPath, let field, let problem)? = outcome.error else {
                XCTFail("expected a problem with \(hostile.field): \(label)")
                continue
            }
            XCTAssertEqual(errorPath, path)
            XCTAssertTrue(field.contains(hostile.field) && problem.contains(hostile.problem), label)
        }
    }

    /// The same fragments as an HLS fMP4 media segment: the segment demuxer names the segment, where it
    /// trapped on the durations and multiplied 70 KB into 100 MB of audio. ffmpeg's own segment, and runs
    /// that share bytes up to the bytes present, demux to one ADTS frame per sample.
    func testHostileFragmentsInAnHLSSegmentAreNamed() throws {
        let source = try Self.source()
        var demuxer = SegmentDemuxer(onTags: { _ in })
        let audio = try demuxer.audio(of: source.segment, initSection: ("init.mp4", source.initSection), url: "0.m4s")
        let real = MP4Bytes(source.segment)
        let samples = Int(real.u32(at: real.field(["moof", "traf", "trun"], word: 1)))
        XCTAssertGreaterThan(samples, 40, "a second of AAC at 48 kHz")
        XCTAssertEqual(ADTSFrames.count(in: audio), samples)
        let shared = try demuxer.audio(of: Self.sharedBytes(source, runs: 1, count: 1 << 16), initSection: nil, url: "1.m4s")
        XCTAssertEqual(shared.count, 65536 * 8, "65536 samples of a byte, each after its ADTS header")

        for hostile in Self.cases where hostile.name != "fragment durations past the table's" {
            let segment = try hostile.fragments(source)
            let initSection = (url: "http://127.0.0.1/init.mp4", bytes: source.initSection)
            let outcome = Self.withDeadline(Self.maxSeconds) { () -> Result<Int, AudioDecoderError> in
                var demuxer = SegmentDemuxer(onTags: { _ in })
                do throws(AudioDecoderError) {
                    return .success(try demuxer.audio(of: segment, initSection: initSection, url: "http://127.0.0.1/1.m4s").count)
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case nil:
                XCTFail("\(hostile.name): still demuxing after \(Self.maxSeconds) s")
            case .failure(.malformed("http://127.0.0.1/1.m4s", let field, let problem)):
                XCTAssertTrue(field.contains(hostile.field) && problem.contains(hostile.problem), "\(hostile.name): \(field): \(problem)")
            case let other:
                XCTFail("\(hostile.name) (\(segment.count) bytes): \(other)")
            }
        }
    }

    /// Runs `work` on a thread of its own; nil if it has not finished within `seconds` (it is left running:
    /// on the code before the budgets, a hostile fragment kept it for hours).
    static func withDeadline<T: Sendable>(_ seconds: Double, _ work: @escaping @Sendable () -> T) -> T? {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}

/// ADTS frames one after the other, as the fragmented MP4 demuxer writes them.
enum ADTSFrames {
    static func count(in bytes: [UInt8]) -> Int {
        var at = 0, frames = 0
        while at + 7 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xF0 == 0xF0 {
            let length = Int(bytes[at + 3] & 0x03) << 11 | Int(bytes[at + 4]) << 3 | Int(bytes[at + 5]) >> 5
            guard length >= 7 else { break }
            at += length
            frames += 1
        }
        return at == bytes.count ? frames : -1
    }
}
