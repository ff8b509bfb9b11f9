import PlayolaEngine
import XCTest

/// ICY metadata interleaving, the text inside the blocks, and the stream's headers.
final class ICYMetadataTests: XCTestCase {
    /// A stream with `metaint` audio bytes (a counting pattern, so order shows) before each block.
    private struct ICYStream {
        let metaint: Int
        var bytes: [UInt8] = []
        var audio: [UInt8] = []

        mutating func append(block text: [UInt8], padTo length: Int? = nil) {
            let audioRun = (0..<metaint).map { UInt8(truncatingIfNeeded: audio.count + $0) }
            audio += audioRun
            bytes += audioRun
            let size = length ?? (text.count + 15) / 16 * 16
            precondition(size % 16 == 0 && size >= text.count && size <= 4080)
            bytes.append(UInt8(size / 16))
            bytes += text + [UInt8](repeating: 0, count: size - text.count)
        }

        mutating func append(title: String) { append(block: Array("StreamTitle='\(title)';".utf8)) }
    }

    private struct Result: Equatable {
        var audio: [UInt8] = []
        var metadata: [ICYMetadata] = []
    }

    private func strip(_ bytes: [UInt8], metaint: Int, cuts: [Int]) throws -> (Result, ICYMetadataStripper) {
        var stripper = try ICYMetadataStripper(metaint: metaint)
        var result = Result()
        bytes.withUnsafeBytes { raw in
            var start = 0
            for end in cuts + [raw.count] where end >= start {
                result.metadata += stripper.consume(UnsafeRawBufferPointer(rebasing: raw[start..<end])) { result.audio += $0 }
                start = end
            }
        }
        return (result, stripper)
    }

    private func sampleStream() -> (ICYStream, [String]) {
        var stream = ICYStream(metaint: 16)
        stream.append(title: "Hozier - Too Sweet")
        stream.append(block: [])
        stream.append(block: Array("StreamTitle='Hozier - Too Sweet';StreamUrl='http://x/art.jpg';".utf8))
        stream.append(block: Array("StreamTitle='Guns N' Roses - Sweet Child o' Mine';StreamUrl='';".utf8), padTo: 4080)
        stream.append(block: [])
        stream.append(title: "Caf\u{E9} Tacvba - Ingrata")
        stream.append(block: Array("StreamUrl='http://only-a-url';".utf8))
        stream.append(title: "Hozier - Too Sweet")
        stream.append(block: [])
        return (stream, ["Hozier - Too Sweet", "Guns N' Roses - Sweet Child o' Mine", "Caf\u{E9} Tacvba - Ingrata", "Hozier - Too Sweet"])
    }

    func testEverySplitPointGivesTheSameAudioAndTitles() throws {
        let (stream, titles) = sampleStream()
        let (whole, stripper) = try strip(stream.bytes, metaint: 16, cuts: [])
        XCTAssertEqual(whole.audio, stream.audio)
        XCTAssertEqual(whole.metadata.map(\.title), titles)
        XCTAssertFalse(stripper.isMidBlock)
        for cut in 0...stream.bytes.count {
            let (split, _) = try strip(stream.bytes, metaint: 16, cuts: [cut])
            XCTAssertEqual(split, whole, "split at \(cut)")
            if split != whole { return }
        }
    }

    func testEveryChunkSizeGivesTheSameAudioAndTitles() throws {
        let (stream, titles) = sampleStream()
        for size in 1...stream.bytes.count {
            let (result, stripper) = try strip(stream.bytes, metaint: 16, cuts: Array(stride(from: size, to: stream.bytes.count, by: size)))
            XCTAssertEqual(result.audio, stream.audio, "chunks of \(size)")
            XCTAssertEqual(result.metadata.map(\.title), titles, "chunks of \(size)")
            XCTAssertFalse(stripper.isMidBlock)
            if result.audio != stream.audio || result.metadata.map(\.title) != titles { return }
        }
    }

    func testArtistSongAndURLAreSplitOut() throws {
        let (stream, _) = sampleStream()
        let metadata = try strip(stream.bytes, metaint: 16, cuts: []).0.metadata
        XCTAssertEqual(metadata.count, 4)
        guard metadata.count == 4 else { return }
        XCTAssertEqual(metadata[0], ICYMetadata(title: "Hozier - Too Sweet"))
        XCTAssertEqual(metadata[0].artist, "Hozier")
        XCTAssertEqual(metadata[0].song, "Too Sweet")
        XCTAssertNil(metadata[0].url)
        XCTAssertEqual(metadata[1].artist, "Guns N' Roses")
        XCTAssertEqual(metadata[1].song, "Sweet Child o' Mine")
        XCTAssertNil(metadata[1].url, "an empty StreamUrl is no URL")
        let noDash = ICYMetadata(title: "Morning Show")
        XCTAssertNil(noDash.artist)
        XCTAssertNil(noDash.song)
        XCTAssertEqual(ICYMetadata(title: "A - B - C").song, "B - C", "split on the first separator")
    }

    func testQuotesAndSemicolonsInsideValues() throws {
        var stream = ICYStream(metaint: 16)
        stream.append(block: Array("StreamTitle='AC/DC - It's a Long Way';Now';StreamUrl='http://x/?a=1;b=2';".utf8))
        let metadata = try strip(stream.bytes, metaint: 16, cuts: []).0.metadata
        XCTAssertEqual(metadata, [ICYMetadata(title: "AC/DC - It's a Long Way';Now", url: "http://x/?a=1;b=2")])
    }

    func testInvalidUTF8IsReadAsLatin1() throws {
        var stream = ICYStream(metaint: 16)
        stream.append(block: Array("StreamTitle='Caf".utf8) + [0xE9] + Array(" - Ol".utf8) + [0xE9] + Array("';".utf8))
        stream.append(block: Array("StreamTitle='Beyonc\u{E9} - Halo';".utf8))
        let titles = try strip(stream.bytes, metaint: 16, cuts: []).0.metadata.map(\.title)
        XCTAssertEqual(titles, ["Caf\u{E9} - Ol\u{E9}", "Beyonc\u{E9} - Halo"])
    }

    func testOnlyTitleChangesAreEmitted() throws {
        var stream = ICYStream(metaint: 16)
        for title in ["A - 1", "A - 1", "A - 1", "B - 2", "B - 2", "A - 1"] { stream.append(title: title) }
        XCTAssertEqual(try strip(stream.bytes, metaint: 16, cuts: []).0.metadata.map(\.title), ["A - 1", "B - 2", "A - 1"])
    }

    func testStreamEndingInsideABlockIsReported() throws {
        var stream = ICYStream(metaint: 16)
        stream.append(title: "Complete - Block")
        let complete = stream.bytes.count
        stream.append(title: "Never - Finished")
        // A length byte promising 255 × 16 bytes, of which only a few arrive.
        let truncated = stream.bytes[..<(complete + 16)] + [255] + Array("StreamTitle='Lost".utf8)
        for cut in 0...truncated.count {
            let (result, stripper) = try strip(Array(truncated), metaint: 16, cuts: [cut])
            XCTAssertEqual(result.audio, Array(stream.audio[..<32]))
            XCTAssertEqual(result.metadata.map(\.title), ["Complete - Block"])
            XCTAssertTrue(stripper.isMidBlock)
        }
        let (_, atLengthByte) = try strip(Array(stream.bytes[..<(complete + 16)]), metaint: 16, cuts: [])
        XCTAssertFalse(atLengthByte.isMidBlock, "audio ended where a length byte was due: nothing was cut")
    }

    func testGarbageBlocksAreIgnored() throws {
        var stream = ICYStream(metaint: 16)
        stream.append(block: [0x01, 0xFF, 0x3D, 0x27, 0x3B, 0x27, 0x80, 0x3D])
        stream.append(block: Array("no pairs here".utf8))
        stream.append(block: Array("StreamTitle='unterminated".utf8))
        let result = try strip(stream.bytes, metaint: 16, cuts: []).0
        XCTAssertEqual(result.audio, stream.audio)
        XCTAssertEqual(result.metadata.map(\.title), ["unterminated"])
    }

    func testMetaintMustBePositive() {
        for bad in [0, -16] {
            XCTAssertThrowsError(try ICYMetadataStripper(metaint: bad)) { error in
                XCTAssertEqual(error as? ICYError, .invalidMetaint(String(bad)))
            }
        }
    }

    func testAudioCallbackErrorsPropagate() throws {
        struct Full: Error {}
        var stripper = try ICYMetadataStripper(metaint: 4)
        let bytes: [UInt8] = [1, 2, 3, 4, 0, 5, 6]
        var calls = 0
        XCTAssertThrowsError(try bytes.withUnsafeBytes { raw in
            _ = try stripper.consume(raw) { _ in
                calls += 1
                throw Full()
            }
        }) { XCTAssertTrue($0 is Full) }
        XCTAssertEqual(calls, 1, "the first failed hand-off stops the read")
    }

    func testHeadersAreReadCaseInsensitively() throws {
        let headers = try ICYHeaders([
            (name: "Content-Type", value: "Audio/MPEG; charset=binary"), (name: "ICY-MetaInt", value: "16000"),
            (name: "icy-name", value: " Radio Playola "), (name: "Icy-Genre", value: "Indie"), (name: "icy-br", value: "128,128"),
        ])
        XCTAssertEqual(headers.metaint, 16000)
        XCTAssertEqual(headers.name, "Radio Playola")
        XCTAssertEqual(headers.genre, "Indie")
        XCTAssertEqual(headers.bitrate, 128)
        XCTAssertEqual(headers.contentType, "audio/mpeg")
        XCTAssertEqual(headers.format, .mp3)

        let bare = try ICYHeaders([(name: "content-type", value: "text/html"), (name: "icy-br", value: "fast")])
        XCTAssertEqual(bare, try ICYHeaders([]).with(contentType: "text/html"))
        XCTAssertThrowsError(try ICYHeaders([(name: "icy-metaint", value: "lots")])) { error in
            XCTAssertEqual(error as? ICYError, .invalidMetaint("lots"))
        }
        XCTAssertThrowsError(try ICYHeaders([(name: "icy-metaint", value: "0")]))
    }

    func testContentTypesNameFormats() {
        let expected: [(String, StreamFormat?)] = [
            ("audio/mpeg", .mp3), ("audio/mp3", .mp3), ("audio/aac", .aac), ("audio/aacp", .aac), ("AUDIO/X-AAC", .aac),
            ("application/ogg", .ogg), ("audio/ogg; codecs=opus", .ogg), ("audio/x-scpls", nil), ("text/html", nil), ("", nil),
        ]
        for (type, format) in expected { XCTAssertEqual(StreamFormat(contentType: type), format, type) }
    }

    func testSniffingTheFirstBytes() {
        XCTAssertEqual(StreamFormat.sniff(Array("ID3".utf8) + [4, 0, 0]), .mp3)
        XCTAssertEqual(StreamFormat.sniff([0xFF, 0xFB, 0x90, 0x64]), .mp3, "MPEG-1 layer III")
        XCTAssertEqual(StreamFormat.sniff([0xFF, 0xE3, 0x18, 0xC4]), .mp3, "MPEG-2.5 layer III")
        XCTAssertEqual(StreamFormat.sniff([0xFF, 0xF1, 0x50, 0x80]), .aac, "ADTS, MPEG-4")
        XCTAssertEqual(StreamFormat.sniff([0xFF, 0xF9, 0x50, 0x80]), .aac, "ADTS, MPEG-2")
        XCTAssertEqual(StreamFormat.sniff(Array("OggS".utf8) + [0, 2]), .ogg)
        XCTAssertNil(StreamFormat.sniff([0xFF, 0xE1]), "11-bit sync with layer 00 is neither")
        XCTAssertNil(StreamFormat.sniff(Array("<html>".utf8)))
        XCTAssertNil(StreamFormat.sniff([0xFF]))
        XCTAssertNil(StreamFormat.sniff([]))
    }
}

private extension ICYHeaders {
    func with(contentType: String) -> ICYHeaders {
        var copy = self
        copy.contentType = contentType
        return copy
    }
}
