import PlayolaOutput
import XCTest

/// The sinks' conversion gives exactly its definition, written here apart (for any faster version to be held
/// to): clamped to [-1, 1], NaN to -1, scaled to full scale, rounded half away from zero; for 16 bits, scaled
/// in Float and rounded to nearest, ties to even (within 2^-10 of a step of the other).
final class SampleFormatTests: XCTestCase {
    /// The definition, per sample, in Swift.
    static func reference(_ sample: Float, _ full: Double) -> Int64 {
        if full == 32767 {
            return Int64((min(1, max(-1, sample)) * 32767).rounded(.toNearestOrEven))
        }
        let value = Double(min(1, max(-1, sample))) * full
        return Int64(value + (value < 0 ? -0.5 : 0.5))
    }

    /// Samples over and beyond the range, the halfway points between two output values, and the odd ones.
    static let samples: [Float] = {
        var samples: [Float] = [0, -0, 1, -1, 1.5, -1.5, .infinity, -.infinity, .nan, .leastNonzeroMagnitude,
                                -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 1 - .ulpOfOne, -1 + .ulpOfOne]
        samples += stride(from: -1.25, through: 1.25, by: 1 / 4099).map { Float($0) }
        for full in [32767.0, 8_388_607.0] {
            samples += (-40...40).map { Float((Double($0) + 0.5) / full) }
            samples += (-40...40).map { Float((full - Double($0) - 0.5) / full) }
        }
        var generator = SystemRandomNumberGenerator()
        samples += (0..<20_000).map { _ in Float.random(in: -1.1...1.1, using: &generator) }
        return samples
    }()

    func converted<T: FixedWidthInteger>(_ format: SampleFormat, bytes: Int, as: T.Type) -> [T] {
        var out = [T](repeating: 0, count: Self.samples.count)
        Self.samples.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBytes { format.convert(source.baseAddress!, count: source.count, into: $0.baseAddress!, bytesPerSample: bytes) }
        }
        return out.map { T(littleEndian: $0) }
    }

    func testTheReferenceRoundsHalfAwayFromZeroAndClamps() {
        XCTAssertEqual(Self.reference(1, 32767), 32767)
        XCTAssertEqual(Self.reference(-2, 32767), -32767)
        XCTAssertEqual(Self.reference(Float(0.6 / 32767), 32767), 1)
        XCTAssertEqual(Self.reference(Float(0.4 / 32767), 32767), 0)
        XCTAssertEqual(Self.reference(Float(-0.6 / 32767), 32767), -1)
        XCTAssertEqual(Self.reference(0.5, 32767), 16384, "16383.5: to even")
        XCTAssertEqual(Self.reference(-0.5, 32767), -16384)
        XCTAssertEqual(Self.reference(0.5, 8_388_607), 4_194_304, "4194303.5: half away from zero")
        XCTAssertEqual(Self.reference(-0.5, 8_388_607), -4_194_304)
        XCTAssertEqual(Self.reference(.nan, 32767), -32767)
    }

    func testSixteenBitIsTheDefinitionExactly() {
        let out = converted(.s16, bytes: 2, as: Int16.self)
        for (index, sample) in Self.samples.enumerated() where Int64(out[index]) != Self.reference(sample, 32767) {
            return XCTFail("\(sample): \(out[index]), not \(Self.reference(sample, 32767))")
        }
    }

    func testThirtyTwoBitAndTwentyFourInFourBytesAreTheDefinitionExactly() {
        for (format, full) in [(SampleFormat.s32, 2_147_483_647.0), (.s24, 8_388_607.0)] {
            let out = converted(format, bytes: 4, as: Int32.self)
            for (index, sample) in Self.samples.enumerated() where Int64(out[index]) != Self.reference(sample, full) {
                return XCTFail("\(format) \(sample): \(out[index]), not \(Self.reference(sample, full))")
            }
        }
    }

    func testTwentyFourInThreeBytesIsTheDefinitionExactly() {
        var out = [UInt8](repeating: 0, count: Self.samples.count * 3)
        Self.samples.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBytes { SampleFormat.s24.convert(source.baseAddress!, count: source.count, into: $0.baseAddress!, bytesPerSample: 3) }
        }
        for (index, sample) in Self.samples.enumerated() {
            let raw = Int32(out[3 * index]) | Int32(out[3 * index + 1]) << 8 | Int32(out[3 * index + 2]) << 16
            let value = (raw << 8) >> 8 // sign-extend 24 bits
            guard Int64(value) == Self.reference(sample, 8_388_607) else {
                return XCTFail("\(sample): \(value), not \(Self.reference(sample, 8_388_607))")
            }
        }
    }

    /// Eight (16 bits) or four samples at a time, and the rest one by one: every short length, from unaligned
    /// starts, in each format and width, is the definition too (the tail and the lanes must agree).
    func testEveryShortLengthFromEveryStartIsTheDefinition() {
        let ties = (0..<16).map { Float((Double($0) - 7.5) / 32767) } + [.nan, 2, -2, 0.5, -0.5, 1, -1, 0.25]
        for (format, bytes, full) in [(SampleFormat.s16, 2, 32767.0), (.s24, 3, 8_388_607), (.s24, 4, 8_388_607), (.s32, 4, 2_147_483_647)] {
            for start in 0..<4 {
                for count in 0...19 {
                    let slice = Array(ties[start..<(start + count)])
                    var out = [UInt8](repeating: 0xAA, count: count * bytes + 1)
                    slice.withUnsafeBufferPointer { source in
                        out.withUnsafeMutableBytes { format.convert(source.baseAddress ?? UnsafePointer(bitPattern: 8)!, count: count, into: $0.baseAddress!, bytesPerSample: bytes) }
                    }
                    XCTAssertEqual(out.last, 0xAA, "\(format) \(bytes) bytes, \(count) samples: nothing written past the end")
                    for (index, sample) in slice.enumerated() {
                        var raw: Int64 = 0
                        for byte in 0..<bytes { raw |= Int64(out[bytes * index + byte]) << (8 * byte) }
                        let value = (raw << (64 - 8 * bytes)) >> (64 - 8 * bytes) // sign-extended
                        XCTAssertEqual(value, Self.reference(sample, full), "\(format) \(bytes) bytes, start \(start), count \(count), sample \(index)")
                    }
                }
            }
        }
    }
}
