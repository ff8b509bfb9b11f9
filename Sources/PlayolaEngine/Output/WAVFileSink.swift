import Glibc
import PlayolaSupport

/// Writes the mix to a RIFF/WAVE file: 16- or 24-bit PCM or 32-bit float, stereo. The header's sizes are
/// rewritten at every drain, so a file cut short by a crash is still readable up to the last drain.
public final class WAVFileSink: AudioSink {
    public let sampleRate: Int
    public let format: SampleFormat
    public var sampleFormat: SampleFormat? { format }
    public let path: String
    private let fd: FileDescriptor
    private var dataBytes: Int64 = 0
    private let buffer: UnsafeMutableRawPointer
    private let bufferFrames = 8192

    public init(path: String, sampleRate: Int, format: SampleFormat = .s16) throws(AudioSinkError) {
        self.path = path
        self.sampleRate = sampleRate
        self.format = format
        do { fd = try .open(path, O_WRONLY | O_CREAT | O_TRUNC, permissions: 0o644) } catch {
            throw .io(path: path, reason: "\(error)")
        }
        buffer = .allocate(byteCount: bufferFrames * 2 * 4, alignment: 16)
        try writeHeader()
    }

    deinit {
        try? drain()
        fd.close()
        buffer.deallocate()
    }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        let frameBytes = 2 * format.packedBytes
        try format.convert(samples, frames: frames, in: bufferFrames, into: buffer, bytesPerSample: format.packedBytes) {
            (chunk, count) throws(AudioSinkError) in
            try writeAll(chunk, count * frameBytes, at: 44 + dataBytes)
            dataBytes += Int64(count * frameBytes)
        }
    }

    public func drain() throws(AudioSinkError) { try writeHeader() }

    private func writeHeader() throws(AudioSinkError) {
        var header: [UInt8] = []
        func ascii(_ text: String) { header += Array(text.utf8) }
        func le(_ value: Int, _ bytes: Int) { for index in 0..<bytes { header.append(UInt8(truncatingIfNeeded: value >> (8 * index))) } }
        let blockAlign = 2 * format.packedBytes
        let dataSize = Int(min(dataBytes, Int64(UInt32.max) - 36))
        ascii("RIFF"); le(36 + dataSize, 4); ascii("WAVE")
        ascii("fmt "); le(16, 4); le(format == .float32 ? 3 : 1, 2); le(2, 2)
        le(sampleRate, 4); le(sampleRate * blockAlign, 4); le(blockAlign, 2); le(format.packedBytes * 8, 2)
        ascii("data"); le(dataSize, 4)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: header.count, alignment: 1)
        defer { raw.deallocate() }
        raw.copyMemory(from: header, byteCount: header.count)
        try writeAll(raw, header.count, at: 0)
    }

    private func writeAll(_ bytes: UnsafeRawPointer, _ count: Int, at offset: Int64) throws(AudioSinkError) {
        do { try fd.writeAll(UnsafeRawBufferPointer(start: bytes, count: count), at: offset) } catch {
            throw .io(path: path, reason: "\(error)")
        }
    }
}
