/// The conversion in SIMD lanes the compiler keeps in vector registers (SSE2 or NEON): 24 and 32 bits four
/// samples at a time in Double, about 14 instructions a sample, where Swift's scalar `Int64(Double)`, which
/// checks each sample for overflow, took ~31; 16 bits eight at a time in Float (bench/PROFILE.md). Arithmetic
/// and bit patterns alone, to the definitions of `scaled` and `scaled16`, which SampleFormatTests hold bit for bit.
extension SampleFormat {
    /// 2^52 + 2^51: added to a double below 2^51 in magnitude, it leaves that value rounded half to even in the
    /// low bits of the sum's bit pattern (the sum's unit in the last place is 1).
    static let roundingMagic: Double = 6_755_399_441_055_744

    /// `scaled` for four samples.
    @inline(__always)
    static func scaled(_ samples: SIMD4<Float>, _ full: SIMD4<Double>) -> SIMD4<Int64> {
        var clamped = samples
        clamped.replace(with: 1, where: clamped .> 1)
        clamped.replace(with: -1, where: .!(clamped .>= -1)) // NaN too
        let value = SIMD4<Double>(clamped) * full
        let magic = SIMD4<Double>(repeating: roundingMagic)
        let biased = value + magic
        let difference = value - (biased - magic)
        // Half to even differs from half away from zero only at a tie (value - even = ±0.5, the sign of the
        // value), and there by one, away from zero: ±0.5 and ±1 with the value's sign, by its sign bit.
        let sign = unsafeBitCast(value, to: SIMD4<UInt64>.self) & SIMD4(repeating: 1 << 63)
        let tie = difference .== unsafeBitCast(sign | SIMD4(repeating: (0.5 as Double).bitPattern), to: SIMD4<Double>.self)
        let away = unsafeBitCast(sign | SIMD4(repeating: (1.0 as Double).bitPattern), to: SIMD4<Double>.self)
        return unsafeBitCast(biased + SIMD4<Double>().replacing(with: away, where: tie), to: SIMD4<Int64>.self)
    }

    /// 1.5·2^23: added to a float below 2^22 in magnitude, it leaves that value rounded to nearest, ties to even,
    /// in the low bits of the sum's bit pattern.
    static let roundingMagic16: Float = 12_582_912

    /// 16-bit output for eight samples, in Float lanes: clamped as `scaled`, times 32767 in Float, rounded to
    /// nearest, ties to even. The Float product is within 2^-10 of a step of the exact one, far below the
    /// output's own rounding, and eight lanes of Float cost what four of Double did (bench/PROFILE.md).
    @inline(__always)
    static func scaled16(_ samples: SIMD8<Float>) -> SIMD8<Int32> {
        var clamped = samples
        clamped.replace(with: 1, where: clamped .> 1)
        clamped.replace(with: -1, where: .!(clamped .>= -1)) // NaN too
        let product = clamped * 32767
        let magic = SIMD8<Float>(repeating: roundingMagic16)
        return unsafeBitCast(product + magic, to: SIMD8<Int32>.self) &- unsafeBitCast(magic, to: SIMD8<Int32>.self)
    }

    /// s16: converts the first `count - count % 8` samples to little-endian Int16 (the caller converts the
    /// rest). Returns how many it converted.
    @inline(__always)
    static func convert16Vectors(_ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer) -> Int {
        #if _endian(little)
        let whole = count & ~7
        let raw = UnsafeRawPointer(source)
        var index = 0
        while index < whole {
            let values = scaled16(raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self))
            destination.storeBytes(of: SIMD8<Int16>(truncatingIfNeeded: values), toByteOffset: index * 2, as: SIMD8<Int16>.self)
            index += 8
        }
        return whole
        #else
        return 0
        #endif
    }

    /// s24 in 4 bytes and s32: converts the first `count - count % 4` samples to little-endian Int32 (the caller
    /// converts the rest). Returns how many it converted.
    @inline(__always)
    func convertVectors(_ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutableRawPointer, full: Double) -> Int {
        #if _endian(little)
        let whole = count & ~3
        let scale = SIMD4<Double>(repeating: full)
        let raw = UnsafeRawPointer(source)
        var index = 0
        while index < whole {
            let values = Self.scaled(raw.loadUnaligned(fromByteOffset: index * 4, as: SIMD4<Float>.self), scale)
            destination.storeBytes(of: SIMD4<Int32>(truncatingIfNeeded: values), toByteOffset: index * 4, as: SIMD4<Int32>.self)
            index += 4
        }
        return whole
        #else
        return 0
        #endif
    }
}
