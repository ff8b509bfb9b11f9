/// A stream decoder's end of the connection's `StreamBuffer`: what has arrived, and the end, which is when
/// the connection has ended and a read found nothing left. The three stream decoders read through it.
final class StreamInput {
    private let buffer: StreamBuffer
    /// Where `read()` puts what it takes (a decoder that has a buffer of its own reads with `read(into:)`).
    private let chunk: UnsafeMutableRawBufferPointer
    /// The connection ended and every byte it brought has been read.
    private(set) var hasEnded = false

    init(_ buffer: StreamBuffer, chunkBytes: Int = 16 << 10) {
        self.buffer = buffer
        chunk = .allocate(byteCount: chunkBytes, alignment: 16)
    }

    deinit { chunk.deallocate() }

    /// What has arrived, up to a chunk, valid until the next read; empty when nothing has.
    func read() -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: chunk[0..<read(into: chunk)])
    }

    /// Takes what has arrived into `destination`; how many bytes.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Int {
        let count = buffer.read(into: destination)
        if count == 0, buffer.isDrained { hasEnded = true }
        return count
    }

    /// Ends the stream if nothing more will arrive: what the decoder holds then is all there is.
    func endIfDrained() -> Bool {
        if buffer.isDrained { hasEnded = true }
        return hasEnded
    }
}
