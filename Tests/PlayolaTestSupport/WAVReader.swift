import Foundation

/// Reads the interleaved samples of a 16-bit PCM or 32-bit float WAV file (what `WAVFileSink` writes).
package struct WAVFile {
    package var rate: Int
    var channels: Int
    var bitsPerSample: Int
    package var samples: [Float]
    /// The raw bytes of the data chunk.
    package var data: Data

    package init(path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 44, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF" else {
            throw NSError(domain: "WAV", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(path) is not a WAV file"])
        }
        var offset = 12
        var format = 1
        rate = 0
        channels = 0
        bitsPerSample = 0
        data = Data()
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            if id == "fmt " {
                format = u16(offset + 8)
                channels = u16(offset + 10)
                rate = u32(offset + 12)
                bitsPerSample = u16(offset + 22)
            } else if id == "data" {
                data = bytes[(offset + 8)..<min(bytes.count, offset + 8 + size)]
                break
            }
            offset += 8 + size
        }
        let raw = data
        if format == 3 {
            samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        } else {
            samples = raw.withUnsafeBytes { $0.bindMemory(to: Int16.self).map { Float($0) / 32767 } }
        }
    }

    package var left: [Float] { stride(from: 0, to: samples.count, by: channels).map { samples[$0] } }
}
