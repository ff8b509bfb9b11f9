import Foundation
import PlayolaEngine
import PlayolaFuzzTargets
import XCTest
import PlayolaTestSupport

/// Issue 26, Ogg: pages of a real Opus stream whose granule positions lie, and a packet that never ends
/// after valid headers. The first plays on, the second is named.
extension StreamDecoderTests {
    /// Every audio page claims a granule of 2^63 - 2: the frames after it passed Int64 (a trap, half a second
    /// into the stream). The granule is not needed to play, so the tone plays.
    func testAGranuleJustUnder2To63PlaysOn() throws {
        var ogg = try bytes(try Fixtures.tone(1000, seconds: 3, rate: 48000, codec: .opus))
        for page in OggPages.pages(in: ogg).dropFirst(2) {
            ogg.replaceSubrange(page.lowerBound + 6..<page.lowerBound + 14, with: withUnsafeBytes(of: (Int64.max - 1).littleEndian, Array.init))
        }
        OggPages.fixChecksums(&ogg)
        let decoded = try decode(ogg, format: .ogg, pieces: [4096])
        XCTAssertGreaterThan(decoded.samples.count, 2 * 48000)
        assertTone(decoded.samples, rate: 48000, frequency: 1000)
    }

    /// After a real Opus stream's headers, pages of 255 segments of 255 bytes, each continuing the packet
    /// of the one before: libogg kept all of it (13 MB here, the stream's rate for ever), and no error came.
    func testAPacketThatNeverEndsIsNamed() throws {
        let opus = try bytes(try Fixtures.tone(1000, seconds: 1, rate: 48000, codec: .opus))
        let pages = OggPages.pages(in: opus)
        var stream = Array(opus[..<pages[2].lowerBound])
        let serial = Array(opus[pages[0].lowerBound + 14..<pages[0].lowerBound + 18])
        for sequence in UInt32(2)..<202 {
            let continued: UInt8 = sequence == 2 ? 0 : 1, noGranule = [UInt8](repeating: 0xFF, count: 8)
            stream += Array("OggS".utf8) + [0, continued] + noGranule + serial + withUnsafeBytes(of: sequence.littleEndian, Array.init)
            stream += [0, 0, 0, 0, 255] + [UInt8](repeating: 255, count: 255) + [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: 255 * 255)
        }
        OggPages.fixChecksums(&stream)
        let baseline = MemoryProbe.resetPeak()
        XCTAssertThrowsError(try decode(stream, format: .ogg, pieces: [4096]), "\(stream.count) bytes of one packet") { error in
            XCTAssertEqual("\(error)", "test: invalid file: Ogg packet: goes on past 256 KiB")
        }
        let growth = MemoryProbe.peakGrowthMB(since: baseline)
        print(String(format: "a packet of %.1f MB: peak +%.1f MB", Double(stream.count) / 1e6, growth))
        XCTAssertLessThan(growth, 4, "libogg holds the packet up to the limit only")
    }
}
