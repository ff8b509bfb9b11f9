import PlayolaEngine

enum StreamFuzzing {
    /// The bytes as a live stream of `format` that has ended: framed, resynced, decoded to the end.
    static func decode(_ input: UnsafeRawBufferPointer, as format: StreamFormat) {
        decode(Array(input), as: format, pieceBytes: max(1, input.count))
    }

    /// The bytes as a live stream arriving `pieceBytes` at a time and then ending, the decoder reading what
    /// has come after each arrival as the decode thread does, until an error or the end.
    static func decode(_ bytes: [UInt8], as format: StreamFormat, pieceBytes: Int) {
        let buffer = StreamBuffer(capacity: max(1, bytes.count))
        guard let decoder = try? openStreamDecoder(format, buffer: buffer, name: "fuzz") else { return }
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * 2)
        defer { output.deallocate() }
        var offset = 0
        do {
            repeat {
                let end = min(bytes.count, offset + pieceBytes)
                bytes[offset..<end].withUnsafeBytes { buffer.append($0) }
                offset = end
                if offset == bytes.count { buffer.finish() }
                guard try decoder.prepare() else { continue }
                while try decoder.read(into: output, maxFrames: 4096) > 0 {}
            } while offset < bytes.count
        } catch {}
    }
}
