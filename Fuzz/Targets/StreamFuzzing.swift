import PlayolaEngine

enum StreamFuzzing {
    /// The bytes as a live stream of `format` that has ended: framed, resynced, decoded to the end.
    static func decode(_ input: UnsafeRawBufferPointer, as format: StreamFormat) {
        let buffer = StreamBuffer(capacity: max(1, input.count))
        buffer.append(input)
        buffer.finish()
        guard let decoder = try? openStreamDecoder(format, buffer: buffer, name: "fuzz"), (try? decoder.prepare()) == true else { return }
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * 2)
        defer { output.deallocate() }
        while let got = try? decoder.read(into: output, maxFrames: 4096), got > 0 {}
    }
}
