import COgg
import PlayolaEngine

enum OggFuzzing {
    /// The input as an Ogg stream, after its pages' checksums are made right: a mutation almost always
    /// breaks a page's CRC, and libogg drops such a page before any header or codec sees it.
    static func run(_ input: UnsafeRawBufferPointer) {
        var bytes = Array(input)
        bytes.withUnsafeMutableBytes(fixChecksums)
        bytes.withUnsafeBytes { StreamFuzzing.decode($0, as: .ogg) }
    }

    /// Sets the CRC of every whole page that starts with the capture pattern "OggS".
    private static func fixChecksums(_ bytes: UnsafeMutableRawBufferPointer) {
        var at = 0
        while at + 27 <= bytes.count {
            guard bytes[at] == 0x4F, bytes[at + 1] == 0x67, bytes[at + 2] == 0x67, bytes[at + 3] == 0x53 else {
                at += 1
                continue
            }
            let segments = Int(bytes[at + 26])
            let headerLength = 27 + segments
            guard at + headerLength <= bytes.count else { return }
            let bodyLength = (0..<segments).reduce(0) { $0 + Int(bytes[at + 27 + $1]) }
            guard at + headerLength + bodyLength <= bytes.count else { return }
            var page = ogg_page(
                header: (bytes.baseAddress! + at).assumingMemoryBound(to: UInt8.self), header_len: headerLength,
                body: (bytes.baseAddress! + at + headerLength).assumingMemoryBound(to: UInt8.self), body_len: bodyLength)
            ogg_page_checksum_set(&page)
            at += headerLength + bodyLength
        }
    }
}
