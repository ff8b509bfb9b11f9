
/// The integer or float PCM a sink writes; the mix is converted once, at the sink, without dither.
public enum SampleFormat: String, Sendable, CaseIterable {
    case s16, s24, s32, float32

    /// Bytes per sample in a WAV file (24-bit is packed in 3 bytes there).
    public var packedBytes: Int {
        switch self {
        case .s16: 2
        case .s24: 3
        case .s32, .float32: 4
        }
    }

    /// Converts interleaved float samples to little-endian bytes, `bytesPerSample` each (3 or 4 for s24).
    public func convert(
        _ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer, bytesPerSample: Int
    ) {
        switch self {
        case .s16:
            let out = destination.assumingMemoryBound(to: Int16.self)
            let done = Self.convert16Vectors(source, count: count, into: destination)
            for index in done..<count { out[index] = Int16(truncatingIfNeeded: Self.scaled16(SIMD8(repeating: source[index]))[0]).littleEndian }
        case .s24 where bytesPerSample == 4:
            let out = destination.assumingMemoryBound(to: Int32.self)
            let done = convertVectors(source, count: count, into: destination, full: 8_388_607)
            for index in done..<count { out[index] = scaled(source[index], 8_388_607).littleEndian }
        case .s24:
            // Most USB DACs' own format (S24_3LE): four values at a time, packed a sample at a time.
            let out = destination.assumingMemoryBound(to: UInt8.self)
            let full = SIMD4<Double>(repeating: 8_388_607)
            var index = 0
            while index < count {
                func at(_ lane: Int) -> Float { index + lane < count ? source[index + lane] : 0 }
                let four = SIMD4<Float>(at(0), at(1), at(2), at(3))
                let values = SIMD4<UInt32>(truncatingIfNeeded: Self.scaled(four, full))
                for lane in 0..<min(4, count - index) {
                    out[3 * (index + lane)] = UInt8(truncatingIfNeeded: values[lane])
                    out[3 * (index + lane) + 1] = UInt8(truncatingIfNeeded: values[lane] >> 8)
                    out[3 * (index + lane) + 2] = UInt8(truncatingIfNeeded: values[lane] >> 16)
                }
                index += 4
            }
        case .s32:
            let out = destination.assumingMemoryBound(to: Int32.self)
            let done = convertVectors(source, count: count, into: destination, full: 2_147_483_647)
            for index in done..<count { out[index] = scaled(source[index], 2_147_483_647).littleEndian }
        case .float32:
            destination.copyMemory(from: source, byteCount: count * 4)
        }
    }

    /// Converts `frames` interleaved stereo frames into `scratch`, which holds `chunkFrames` of them, a chunk at a
    /// time, and hands each converted chunk (bytes, frames) to `write`.
    public func convert<Failure: Error>(
        _ samples: UnsafePointer<Float>, frames: Int, in chunkFrames: Int, into scratch: UnsafeMutableRawPointer,
        bytesPerSample: Int, _ write: (UnsafeRawPointer, Int) throws(Failure) -> Void
    ) throws(Failure) {
        var done = 0
        while done < frames {
            let count = min(chunkFrames, frames - done)
            convert(samples + done * 2, count: count * 2, into: scratch, bytesPerSample: bytesPerSample)
            try write(scratch, count)
            done += count
        }
    }

    /// Clamped to [-1, 1] (NaN to -1), scaled to `full`, rounded half away from zero: the definition
    /// SampleFormatTests hold, in the vectors' arithmetic (`scaled(_:_:)` for four), for the last few samples.
    @inline(__always)
    private func scaled(_ sample: Float, _ full: Double) -> Int32 {
        Int32(truncatingIfNeeded: Self.scaled(SIMD4(repeating: sample), SIMD4(repeating: full))[0])
    }
}
