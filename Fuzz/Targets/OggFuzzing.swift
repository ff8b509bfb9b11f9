import COgg
import PlayolaEngine

enum OggFuzzing {
    /// The input as an Ogg stream, after its pages' checksums are made right: a mutation almost always
    /// breaks a page's CRC, and libogg drops such a page before any header or codec sees it.
    static func run(_ input: UnsafeRawBufferPointer) {
        var bytes = Array(input)
        OggPages.fixChecksums(&bytes)
        bytes.withUnsafeBytes { StreamFuzzing.decode($0, as: .ogg) }
    }
}

enum OggPageFuzzing {
    /// What the pages add up to with a last page that ends inside a packet sent again: past the decoder's
    /// packet limit.
    static let streamBytes = 320 << 10

    /// The input as the pages of a live Ogg stream: checksums made right, arriving in pieces (of a size
    /// the first byte chooses) with the decoder reading between them, then the last page sent again with
    /// the sequence number that follows; again and again if its last packet goes on to the next page, as
    /// from a station whose packet never ends.
    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 2 else { return }
        var bytes = Array(input[1...])
        OggPages.fixChecksums(&bytes)
        if var page = OggPages.pages(in: bytes).last.map({ Array(bytes[$0]) }) {
            let continues = page[26] > 0 && page[26 + Int(page[26])] == 255
            var sequence = UInt32(page[18]) | UInt32(page[19]) << 8 | UInt32(page[20]) << 16 | UInt32(page[21]) << 24
            for _ in 0..<(continues ? max(0, (streamBytes - bytes.count) / page.count) : 1) {
                sequence &+= 1
                for index in 0..<4 { page[18 + index] = UInt8(truncatingIfNeeded: sequence >> (8 * index)) }
                OggPages.fixChecksums(&page)
                bytes += page
            }
        }
        StreamFuzzing.decode(bytes, as: .ogg, pieceBytes: 1 + Int(input[0]) * 64)
    }
}

/// Ogg pages in a byte stream, for making hostile streams (the fuzz targets, the tests).
public enum OggPages {
    /// Where each whole page lies: a page starts with the capture pattern "OggS"; junk between is passed over.
    public static func pages(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var at = 0
        while at + 27 <= bytes.count {
            guard bytes[at..<at + 4].elementsEqual("OggS".utf8) else {
                at += 1
                continue
            }
            let headerLength = 27 + Int(bytes[at + 26])
            guard at + headerLength <= bytes.count else { break }
            let length = bytes[at + 27..<at + headerLength].reduce(headerLength) { $0 + Int($1) }
            guard at + length <= bytes.count else { break }
            found.append(at..<at + length)
            at += length
        }
        return found
    }

    /// Sets the CRC of every whole page.
    public static func fixChecksums(_ bytes: inout [UInt8]) {
        let pages = pages(in: bytes)
        bytes.withUnsafeMutableBufferPointer { bytes in
            for range in pages {
                let start = bytes.baseAddress! + range.lowerBound, headerLength = 27 + Int(start[26])
                var page = ogg_page(header: start, header_len: headerLength, body: start + headerLength, body_len: range.count - headerLength)
                ogg_page_checksum_set(&page)
            }
        }
    }
}
