import Glibc
import PlayolaSupport

/// Writes the mix to a RIFF/WAVE file: 16- or 24-bit PCM or 32-bit float, stereo. The header's sizes are
/// rewritten after every write, so the file is whole at any moment: a reader opening it mid-way, or after
/// the process ended without closing it (the service's fallback sink lives as long as the process), sees
/// every frame written. One 44-byte write from a buffer made once: no allocation on the render thread.
public final class WAVFileSink: AudioSink {
    public let sampleRate: Int
    public let format: SampleFormat
    public var sampleFormat: SampleFormat? { format }
    public let path: String
    private let fd: FileDescriptor
    private var dataBytes: Int64 = 0
    private let buffer: UnsafeMutableRawPointer
    private let bufferFrames = 8192
    private let header: UnsafeMutableRawPointer
    private static let headerBytes = 44

    public init(path: String, sampleRate: Int, format: SampleFormat = .s16) throws(AudioSinkError) {
        self.path = path
        self.sampleRate = sampleRate
        self.format = format
        do { fd = try .open(path, O_WRONLY | O_CREAT | O_TRUNC, permissions: 0o644) } catch {
            throw .io(path: path, reason: "\(error)")
        }
        buffer = .allocate(byteCount: bufferFrames * 2 * 4, alignment: 16)
        header = .allocate(byteCount: Self.headerBytes, alignment: 4)
        try writeHeader()
    }

    deinit {
        try? drain()
        fd.close()
        buffer.deallocate()
        header.deallocate()
    }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        let frameBytes = 2 * format.packedBytes
        try format.convert(samples, frames: frames, in: bufferFrames, into: buffer, bytesPerSample: format.packedBytes) {
            (chunk, count) throws(AudioSinkError) in
            try writeAll(chunk, count * frameBytes, at: 44 + dataBytes)
            dataBytes += Int64(count * frameBytes)
        }
        try writeHeader()
    }

    public func drain() throws(AudioSinkError) { try writeHeader() }

    private func writeHeader() throws(AudioSinkError) {
        func ascii(_ text: StaticString, at offset: Int) {
            header.advanced(by: offset).copyMemory(from: text.utf8Start, byteCount: 4)
        }
        func le32(_ value: Int, at offset: Int) {
            header.storeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt32.self)
        }
        func le16(_ value: Int, at offset: Int) {
            header.storeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, toByteOffset: offset, as: UInt16.self)
        }
        let blockAlign = 2 * format.packedBytes
        let dataSize = Int(min(dataBytes, Int64(UInt32.max) - 36))
        ascii("RIFF", at: 0); le32(36 + dataSize, at: 4); ascii("WAVE", at: 8)
        ascii("fmt ", at: 12); le32(16, at: 16); le16(format == .float32 ? 3 : 1, at: 20); le16(2, at: 22)
        le32(sampleRate, at: 24); le32(sampleRate * blockAlign, at: 28); le16(blockAlign, at: 32)
        le16(format.packedBytes * 8, at: 34)
        ascii("data", at: 36); le32(dataSize, at: 40)
        try writeAll(header, Self.headerBytes, at: 0)
    }

    private func writeAll(_ bytes: UnsafeRawPointer, _ count: Int, at offset: Int64) throws(AudioSinkError) {
        do { try fd.writeAll(UnsafeRawBufferPointer(start: bytes, count: count), at: offset) } catch {
            throw .io(path: path, reason: "\(error)")
        }
    }
}
