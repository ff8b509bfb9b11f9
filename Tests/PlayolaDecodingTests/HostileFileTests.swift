import Foundation
import PlayolaEngine
import XCTest
import PlayolaTestSupport

/// Issue 12, files: hostile variants of real fixtures (one field of one box at a time, 64-bit sizes, cuts, a WAV
/// that lies about its format) each end with a named error or a clean decode, quickly and in bounded memory.
final class HostileFileTests: XCTestCase {
    /// How a case must end.
    enum Expected: Sendable, CustomStringConvertible {
        /// `AudioDecoderError.malformed` naming a field that contains this text.
        case malformed(String)
        case truncated
        /// Any `AudioDecoderError` (libsndfile's own refusals are `.invalid`).
        case refused
        /// Opens and decodes to its end without an error.
        case decodes

        var description: String {
            switch self {
            case .malformed(let field): "malformed(\(field))"
            case .truncated: "truncated"
            case .refused: "refused"
            case .decodes: "decodes"
            }
        }
    }

    struct Case: Sendable {
        var name: String
        var fixture: Fixtures.Codec
        var expected: Expected
        var mutate: @Sendable (inout MP4Bytes) -> Void
    }

    /// What opening and decoding a file came to.
    struct Outcome {
        var error: AudioDecoderError?
        var frames: Int
        var seconds: Double
        var peakGrowthMB: Double
    }

    static let maxSeconds = 2.0
    static let maxPeakGrowthMB = 48.0

    static let stbl = ["moov", "trak", "mdia", "minf", "stbl"]
    static func table(_ box: String) -> [String] { stbl + [box] }
    static let mdhd = ["moov", "trak", "mdia", "mdhd"]
    static let mvhd = ["moov", "mvhd"]
    static let elst = ["moov", "trak", "edts", "elst"]

    /// One case per class of issue 12's findings. Word indexes count 32-bit words after a box's header. The M4A
    /// fixture is rechunked to 10 samples a chunk first, so that its tables have several entries.
    static let cases: [Case] = [
        // Box sizes.
        Case(name: "stbl larger than its parent", fixture: .m4a, expected: .malformed("stbl")) { $0.set(0xFFFF_FFF0, at: $0.offset(of: stbl)!) },
        Case(name: "top-level box smaller than its header", fixture: .m4a, expected: .malformed("free")) { $0.set(4, at: $0.offset(of: ["free"])!) },
        Case(name: "moov 64-bit size past the end", fixture: .m4a, expected: .malformed("moov")) { file in
            let moov = file.offset(of: ["moov"])!
            file.set(1, at: moov)
            file.set(0xFFFF_FFFF, at: moov + 8)
            file.set(0xFFFF_FFFF, at: moov + 12)
        },
        Case(name: "trak 64-bit size of Int64.max", fixture: .m4a, expected: .malformed("moov")) { file in
            let trak = file.offset(of: ["moov", "trak"])!
            file.set(1, at: trak)
            file.set(0x7FFF_FFFF, at: trak + 8)
            file.set(0xFFFF_FFFF, at: trak + 12)
        },
        // Timescales.
        Case(name: "mdhd timescale 0", fixture: .m4a, expected: .malformed("mdhd timescale")) { $0.set(mdhd, word: 3, to: 0) },
        Case(name: "mdhd timescale 0xFFFFFFFF", fixture: .m4a, expected: .malformed("timescale")) { $0.set(mdhd, word: 3, to: 0xFFFF_FFFF) },
        Case(name: "mvhd timescale 0", fixture: .m4a, expected: .malformed("mvhd timescale")) { $0.set(mvhd, word: 3, to: 0) },
        Case(name: "mvhd timescale 0xFFFFFFFF", fixture: .m4a, expected: .decodes) { $0.set(mvhd, word: 3, to: 0xFFFF_FFFF) },
        // Sample tables.
        Case(name: "stts entry count 0xFFFFFFFF", fixture: .m4a, expected: .malformed("stts")) { $0.set(table("stts"), word: 1, to: 0xFFFF_FFFF) },
        Case(name: "stts count × delta overflows", fixture: .m4a, expected: .malformed("stts")) { file in
            file.set(table("stts"), word: 2, to: 0xFFFF_FFFF)
            file.set(table("stts"), word: 3, to: 0xFFFF_FFFF)
        },
        Case(name: "stts delta 0xFFFFFFFF", fixture: .m4a, expected: .malformed("timescale")) { $0.set(table("stts"), word: 3, to: 0xFFFF_FFFF) },
        Case(name: "stsz count 0xFFFFFFFF", fixture: .m4a, expected: .malformed("stsz")) { $0.set(table("stsz"), word: 2, to: 0xFFFF_FFFF) },
        Case(name: "stsz fixed size, count 0xFFFFFFFF", fixture: .m4a, expected: .malformed("stsz")) { file in
            file.set(table("stsz"), word: 1, to: 0xFFFF_FFF0)
            file.set(table("stsz"), word: 2, to: 0xFFFF_FFFF)
        },
        Case(name: "stsz sample of 4 GB", fixture: .m4a, expected: .malformed("stsz")) { $0.set(table("stsz"), word: 5, to: 0xFFFF_FFFF) },
        Case(name: "stco entry count 0xFFFFFFFF", fixture: .m4a, expected: .malformed("stco")) { $0.set(table("stco"), word: 1, to: 0xFFFF_FFFF) },
        Case(name: "stco offset past the end", fixture: .m4a, expected: .truncated) { $0.set(table("stco"), word: 2, to: 0xFFFF_FFFF) },
        Case(name: "co64 of the same offsets", fixture: .m4a, expected: .decodes) { $0.widenChunkOffsets { _, offset in [0, offset] } },
        Case(name: "co64 offset 2^64-1", fixture: .m4a, expected: .truncated) { file in
            file.widenChunkOffsets { $0 == 0 ? [0, $1] : [0xFFFF_FFFF, 0xFFFF_FFFF] }
        },
        Case(name: "co64 entry count past its bytes", fixture: .m4a, expected: .malformed("co64")) { $0.rename(table("stco"), to: "co64") },
        Case(name: "stsc entry count 0xFFFFFFFF", fixture: .m4a, expected: .malformed("stsc")) { $0.set(table("stsc"), word: 1, to: 0xFFFF_FFFF) },
        Case(name: "stsc 0xFFFFFFFF samples per chunk", fixture: .m4a, expected: .decodes) { $0.set(table("stsc"), word: 3, to: 0xFFFF_FFFF) },
        Case(name: "stsc first chunk 0xFFFFFFFF", fixture: .m4a, expected: .malformed("stsc")) { $0.set(table("stsc"), word: 2, to: 0xFFFF_FFFF) },
        Case(name: "stsc runs out of order", fixture: .m4a, expected: .malformed("stsc")) { $0.set(table("stsc"), word: 5, to: 1) },
        Case(name: "stsc 0 samples per chunk", fixture: .m4a, expected: .malformed("stsc")) { $0.set(table("stsc"), word: 3, to: 0) },
        // Edit list.
        Case(name: "elst duration and media time at their limits", fixture: .m4a, expected: .decodes) { file in
            file.set(elst, word: 2, to: 0xFFFF_FFFF)
            file.set(elst, word: 3, to: 0x7FFF_FFFF)
        },
        Case(name: "elst entry count 0xFFFFFFFF", fixture: .m4a, expected: .decodes) { $0.set(elst, word: 1, to: 0xFFFF_FFFF) },
        Case(name: "elst version 1 over 32-bit entries", fixture: .m4a, expected: .decodes) { $0.set(elst, word: 0, to: 0x0100_0000) },
        // iTunSMPB (read when there is no edit list).
        Case(name: "iTunSMPB name shorter than its header", fixture: .m4a, expected: .decodes) { file in
            file.rename(["moov", "trak", "edts"], to: "free")
            file.replace(["moov", "udta"], with: MP4Bytes.iTunSMPB(name: [0, 0], data: MP4Bytes.smpbData(" 0 840 0 1000")))
        },
        Case(name: "iTunSMPB empty", fixture: .m4a, expected: .decodes) { file in
            file.rename(["moov", "trak", "edts"], to: "free")
            file.replace(["moov", "udta"], with: MP4Bytes.iTunSMPB(data: []))
        },
        Case(name: "iTunSMPB of two fields", fixture: .m4a, expected: .decodes) { file in
            file.rename(["moov", "trak", "edts"], to: "free")
            file.replace(["moov", "udta"], with: MP4Bytes.iTunSMPB(data: MP4Bytes.smpbData(" 00000000 00000840")))
        },
        Case(name: "iTunSMPB values of 2^64-1", fixture: .m4a, expected: .decodes) { file in
            file.rename(["moov", "trak", "edts"], to: "free")
            let all = String(repeating: "F", count: 16)
            file.replace(["moov", "udta"], with: MP4Bytes.iTunSMPB(data: MP4Bytes.smpbData(" 0 \(all) \(all) \(all)")))
        },
        // A WAV that lies about its format (little-endian fields of the fmt chunk).
        Case(name: "WAV at 1 Hz", fixture: .wav, expected: .malformed("sample rate")) { $0.setLittleEndian(1, at: 24) },
        Case(name: "WAV at 4 GHz", fixture: .wav, expected: .refused) { $0.setLittleEndian(0xFFFF_FFFF, at: 24) },
        Case(name: "WAV of 200 channels", fixture: .wav, expected: .refused) { $0.bytes[22] = 200 },
        // Truncations.
        Case(name: "M4A cut inside moov", fixture: .m4a, expected: .malformed("moov")) { $0.bytes.removeLast(200) },
        Case(name: "M4A cut before moov", fixture: .m4a, expected: .malformed("moov")) { $0.bytes.removeLast($0.bytes.count - 100) },
        Case(name: "ADTS cut mid-frame", fixture: .aac, expected: .truncated) { $0.bytes.removeLast($0.bytes.count / 2 + 3) },
        Case(name: "ADTS first frame of 8191 bytes", fixture: .aac, expected: .decodes) { file in
            file.bytes[3] |= 0x03
            file.bytes[4] = 0xFF
            file.bytes[5] |= 0xE0
        },
        Case(name: "ADTS of 150 000 empty frames", fixture: .aac, expected: .refused) { file in
            file.bytes = Array(file.bytes[0..<7])
            file.bytes[3] &= 0xFC
            file.bytes[4] = 0
            file.bytes[5] = 7 << 5 | (file.bytes[5] & 0x1F)
            file.bytes = Array([[UInt8]](repeating: file.bytes, count: 150_000).joined())
        },
        Case(name: "WAV cut mid-sample", fixture: .wav, expected: .decodes) { $0.bytes.removeLast($0.bytes.count / 2 + 1) },
    ]

    func testEveryCraftedFileEndsWithANamedErrorOrACleanDecodeQuicklyAndInBoundedMemory() throws {
        let folder = Fixtures.temporaryDirectory("hostile")
        var worst = (seconds: 0.0, secondsCase: "", memory: 0.0, memoryCase: "")
        for (index, hostile) in Self.cases.enumerated() {
            let path = try Self.write(hostile, to: folder + "/case-\(index).\(hostile.fixture.rawValue)")

            let outcome = Self.openAndDecode(path)
            let label = "\(hostile.name): \(outcome.error.map { "\($0)" } ?? "decoded \(outcome.frames) frames")"
            print(String(format: "hostile %-44@ %6.3f s %6.1f MB  %@", hostile.name as NSString, outcome.seconds, outcome.peakGrowthMB, label))
            XCTAssertLessThan(outcome.seconds, Self.maxSeconds, label)
            XCTAssertLessThan(outcome.peakGrowthMB, Self.maxPeakGrowthMB, label)
            switch (hostile.expected, outcome.error) {
            case (.malformed(let field), .malformed(let errorPath, let named, _)?):
                XCTAssertTrue(named.contains(field), "expected a problem with \(field): \(label)")
                XCTAssertEqual(errorPath, path)
            case (.truncated, .truncated(let errorPath, _)?):
                XCTAssertEqual(errorPath, path)
            case (.refused, let error?):
                XCTAssertTrue("\(error)".hasPrefix(path), label)
            case (.decodes, nil):
                break
            default:
                XCTFail("expected \(hostile.expected): \(label)")
            }
            if outcome.seconds > worst.seconds { worst = (outcome.seconds, hostile.name, worst.memory, worst.memoryCase) }
            if outcome.peakGrowthMB > worst.memory { worst = (worst.seconds, worst.secondsCase, outcome.peakGrowthMB, hostile.name) }
        }
        print(String(format: "hostile worst: %.3f s (%@), %.1f MB (%@)", worst.seconds, worst.secondsCase, worst.memory, worst.memoryCase))
    }

    /// The files that did the most harm before (a trap, gigabytes, a WAV resampled from 1 Hz, a pinned core),
    /// each as one spin of a schedule: an error names the file and the field, that spin's window is silent,
    /// and the spins before and after play.
    func testAHostileSpinIsSilenceAndTheRestOfTheSchedulePlays() throws {
        let folder = Fixtures.temporaryDirectory("hostile-schedule")
        let names = ["mdhd timescale 0", "stts delta 0xFFFFFFFF", "stsz fixed size, count 0xFFFFFFFF", "stsc first chunk 0xFFFFFFFF", "WAV at 1 Hz"]
        for name in names {
            let hostile = try XCTUnwrap(Self.cases.first { $0.name == name })
            guard case .malformed(let field) = hostile.expected else { return XCTFail("\(name) should be refused") }
            let path = try Self.write(hostile, to: folder + "/\(names.firstIndex(of: name)!).\(hostile.fixture.rawValue)")
            let baseline = MemoryProbe.resetPeak()
            let start = Date()
            let (events, analysis) = try renderAround(brokenFile: path)
            let seconds = Date().timeIntervalSince(start), growth = MemoryProbe.peakGrowthMB(since: baseline)
            print(String(format: "hostile spin %-36@ rendered 10 s in %.2f s, peak +%.1f MB", name as NSString, seconds, growth))
            let errors = events.filter { $0.kind == .error }
            XCTAssertEqual(errors.map(\.spin.id), ["broken"], "\(name): one error, for the hostile spin: \(errors)")
            XCTAssertTrue(errors.first.map { $0.detail.hasPrefix(path + ": invalid file: ") && $0.detail.contains(field) } ?? false,
                          "\(name): \(errors.first?.detail ?? "no error")")
            assertPlays(analysis, 400, at: 1, "\(name): the spin before plays")
            XCTAssertLessThan(analysis.rms(from: 2 * 48000 + 2400, count: 6 * 48000 - 4800), 1e-6, "\(name): silence for the hostile spin")
            assertPlays(analysis, 1000, at: 9, "\(name): the spin after plays")
            XCTAssertLessThan(growth, Self.maxPeakGrowthMB, name)
        }
    }

    /// `hostile` applied to its fixture (an M4A rechunked first), written to `path`.
    static func write(_ hostile: Case, to path: String) throws -> String {
        let source = try Fixtures.tone(700, seconds: 2, rate: 48000, codec: hostile.fixture)
        var file = MP4Bytes(Array(try Data(contentsOf: URL(fileURLWithPath: source))))
        if hostile.fixture == .m4a { file.rechunk(stbl, perChunk: 10) }
        hostile.mutate(&file)
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testTheUnmodifiedAndRechunkedFixturesDecode() throws {
        for codec in [Fixtures.Codec.m4a, .aac, .wav] {
            let outcome = Self.openAndDecode(try Fixtures.tone(700, seconds: 2, rate: 48000, codec: codec))
            XCTAssertNil(outcome.error, "\(codec)")
            XCTAssertGreaterThan(outcome.frames, 90000, "\(codec)")
        }
        let source = try Fixtures.tone(700, seconds: 2, rate: 48000, codec: .m4a)
        var file = MP4Bytes(Array(try Data(contentsOf: URL(fileURLWithPath: source))))
        file.rechunk(Self.stbl, perChunk: 10)
        XCTAssertEqual(file.u32(at: file.field(Self.table("stco"), word: 1)), 10, "95 samples in chunks of 10")
        let path = Fixtures.temporaryDirectory("rechunked") + "/rechunked.m4a"
        try Data(file.bytes).write(to: URL(fileURLWithPath: path))
        let whole = Self.openAndDecode(source), rechunked = Self.openAndDecode(path)
        XCTAssertNil(rechunked.error)
        XCTAssertEqual(rechunked.frames, whole.frames, "the same audio")
    }

    /// Opens `path` as the player would, decodes it to its end (at most ten minutes), seeks back into the middle
    /// and decodes a little more, measuring the time and the rise of peak memory.
    static func openAndDecode(_ path: String) -> Outcome {
        let baseline = MemoryProbe.resetPeak()
        let start = Date()
        var frames = 0
        var failure: AudioDecoderError?
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * 8)
        defer { buffer.deallocate() }
        do {
            let decoder = try openAudioFile(path: path)
            while frames < 600 * 48000 {
                let got = try decoder.read(into: buffer, maxFrames: 4096)
                if got == 0 { break }
                frames += got
            }
            try decoder.seek(toFrame: Int64(frames / 2))
            _ = try decoder.read(into: buffer, maxFrames: 4096)
        } catch {
            failure = error
        }
        return Outcome(error: failure, frames: frames, seconds: Date().timeIntervalSince(start),
                       peakGrowthMB: MemoryProbe.peakGrowthMB(since: baseline))
    }
}

extension MP4Bytes {
    /// Replaces `stco` by a `co64` whose entries `wide(index, offset)` makes (high and low words).
    mutating func widenChunkOffsets(_ wide: (Int, UInt32) -> [UInt32]) {
        let stco = HostileFileTests.table("stco")
        let count = Int(u32(at: field(stco, word: 1)))
        let entries = (0..<count).flatMap { wide($0, u32(at: field(stco, word: 2 + $0))) }
        replace(stco, with: Self.box("co64", Self.words([0, UInt32(count)] + entries)))
    }

    mutating func setLittleEndian(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
