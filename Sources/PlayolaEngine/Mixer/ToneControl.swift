import Glibc

/// Bass and treble: a low shelf at 150 Hz and a high shelf at 4 kHz (RBJ Audio EQ Cookbook, slope 1) on the
/// stereo mix, after the volume. The corners put a setting's full gain at 50 Hz and 10 kHz (within 0.25 dB
/// for ±12 dB) and leave 1 kHz within 0.1 dB of flat.
///
/// Real-time safe: no allocation, locks or logs. A change moves the applied gains 0.1 dB per 64 frames
/// (12 dB in 160 ms at 48 kHz), the coefficients recomputed at each step and slid there sample by sample:
/// stepped, each step is a small jump in gain that a 50 Hz tone makes audible as zipper noise (measured:
/// 0.25 dB steps gave a third difference 25 times the signal's own; sliding 0.1 dB steps, under 1.2 times). Flat
/// costs a copy of the last two frames per block: the filters' state is kept as an identity filter's would
/// be, so leaving flat starts from the exact state, without a transient.
public struct ToneControl: Sendable {
    public static let range = -12.0...12.0
    static let bassCorner = 150.0
    static let trebleCorner = 4000.0
    static let stepDB = 0.1
    static let stepFrames = 64

    public private(set) var bass = 0.0
    public private(set) var treble = 0.0
    /// The gains applied now, on their way to `bass` and `treble`.
    private var appliedBass = 0.0
    private var appliedTreble = 0.0
    private var low = Biquad.identity
    private var high = Biquad.identity
    /// Per channel (left, right): the low shelf's state, then the high shelf's.
    private var state = (BiquadState(), BiquadState(), BiquadState(), BiquadState())
    private let sampleRate: Double

    public init(sampleRate: Int) {
        self.sampleRate = Double(sampleRate)
    }

    /// Sets the gains in dB, clamped to `range`; they are reached gradually.
    public mutating func set(bass: Double, treble: Double) {
        self.bass = min(max(bass.isFinite ? bass : 0, Self.range.lowerBound), Self.range.upperBound)
        self.treble = min(max(treble.isFinite ? treble : 0, Self.range.lowerBound), Self.range.upperBound)
    }

    public var isFlat: Bool { bass == 0 && treble == 0 && appliedBass == 0 && appliedTreble == 0 }

    /// Both settings in one word for an atomic (tenths of a dB, 16 bits each), so the control side can set
    /// what the render thread reads without a lock.
    public static func packed(bass: Double, treble: Double) -> UInt32 {
        func tenths(_ dB: Double) -> UInt32 {
            UInt32(UInt16(bitPattern: Int16((min(max(dB.isFinite ? dB : 0, range.lowerBound), range.upperBound) * 10).rounded())))
        }
        return tenths(bass) << 16 | tenths(treble)
    }

    /// Sets the gains a `packed` word carries.
    public mutating func set(packed: UInt32) {
        set(bass: Double(Int16(bitPattern: UInt16(packed >> 16))) / 10, treble: Double(Int16(bitPattern: UInt16(packed & 0xFFFF))) / 10)
    }

    /// Filters `frames` interleaved stereo frames in place.
    public mutating func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        if isFlat {
            keepIdentityState(samples, frames: frames)
            return
        }
        var done = 0
        while done < frames {
            let count = min(Self.stepFrames, frames - done)
            if appliedBass != bass || appliedTreble != treble {
                let from = (low, high)
                step()
                run(samples + 2 * done, frames: count, sliding: from)
            } else {
                run(samples + 2 * done, frames: count, sliding: nil)
            }
            done += count
        }
    }

    private mutating func step() {
        appliedBass += min(max(bass - appliedBass, -Self.stepDB), Self.stepDB)
        appliedTreble += min(max(treble - appliedTreble, -Self.stepDB), Self.stepDB)
        low = appliedBass == 0 ? .identity : .lowShelf(corner: Self.bassCorner, gainDB: appliedBass, rate: sampleRate)
        high = appliedTreble == 0 ? .identity : .highShelf(corner: Self.trebleCorner, gainDB: appliedTreble, rate: sampleRate)
    }

    /// Filters with `low` and `high`; from the coefficients of `sliding`, when given, moving to them linearly.
    private mutating func run(_ samples: UnsafeMutablePointer<Float>, frames: Int, sliding from: (Biquad, Biquad)?) {
        var (lowLeft, lowRight, highLeft, highRight) = state
        var (lowNow, highNow) = from ?? (low, high)
        let lowStep = from.map { low.minus($0.0).scaled(1 / Double(frames)) } ?? Biquad.zero
        let highStep = from.map { high.minus($0.1).scaled(1 / Double(frames)) } ?? Biquad.zero
        for frame in 0..<frames {
            if from != nil {
                lowNow = lowNow.plus(lowStep)
                highNow = highNow.plus(highStep)
            }
            let left = highNow.filter(lowNow.filter(Double(samples[2 * frame]), &lowLeft), &highLeft)
            let right = highNow.filter(lowNow.filter(Double(samples[2 * frame + 1]), &lowRight), &highRight)
            samples[2 * frame] = Float(left)
            samples[2 * frame + 1] = Float(right)
        }
        state = (lowLeft, lowRight, highLeft, highRight)
    }

    /// An identity filter's state after this block: its last two inputs, which are also its outputs.
    private mutating func keepIdentityState(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
        for channel in 0..<2 {
            let last = Double(samples[2 * (frames - 1) + channel])
            let before = frames > 1 ? Double(samples[2 * (frames - 2) + channel]) : (channel == 0 ? state.0.x1 : state.1.x1)
            let history = BiquadState(x1: last, x2: before, y1: last, y2: before)
            if channel == 0 { (state.0, state.2) = (history, history) } else { (state.1, state.3) = (history, history) }
        }
    }
}

/// One second-order section in direct form I, in Double (a 150 Hz shelf at 48 kHz has poles close to 1,
/// where Float's rounding would be heard as noise).
struct Biquad: Sendable {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0

    static let identity = Biquad()
    static let zero = Biquad(b0: 0)

    func plus(_ other: Biquad) -> Biquad {
        Biquad(b0: b0 + other.b0, b1: b1 + other.b1, b2: b2 + other.b2, a1: a1 + other.a1, a2: a2 + other.a2)
    }

    func minus(_ other: Biquad) -> Biquad { plus(other.scaled(-1)) }

    func scaled(_ factor: Double) -> Biquad {
        Biquad(b0: b0 * factor, b1: b1 * factor, b2: b2 * factor, a1: a1 * factor, a2: a2 * factor)
    }

    @inline(__always)
    func filter(_ x: Double, _ s: inout BiquadState) -> Double {
        let y = b0 * x + b1 * s.x1 + b2 * s.x2 - a1 * s.y1 - a2 * s.y2
        s = BiquadState(x1: x, x2: s.x1, y1: y, y2: s.y1)
        return y
    }

    static func lowShelf(corner: Double, gainDB: Double, rate: Double) -> Biquad { shelf(corner: corner, gainDB: gainDB, rate: rate, high: false) }
    static func highShelf(corner: Double, gainDB: Double, rate: Double) -> Biquad { shelf(corner: corner, gainDB: gainDB, rate: rate, high: true) }

    private static func shelf(corner: Double, gainDB: Double, rate: Double, high: Bool) -> Biquad {
        let a = pow(10, gainDB / 40)
        let w0 = 2 * Double.pi * min(corner, rate * 0.45) / rate
        let cosW = cos(w0)
        let alpha = sin(w0) / 2 * sqrt(2)  // slope S = 1
        let root = 2 * sqrt(a) * alpha
        let sign = high ? -1.0 : 1.0  // the high shelf is the low shelf with cos(w0)'s sign turned
        let b0 = a * ((a + 1) - sign * (a - 1) * cosW + root)
        let b1 = sign * 2 * a * ((a - 1) - sign * (a + 1) * cosW)
        let b2 = a * ((a + 1) - sign * (a - 1) * cosW - root)
        let a0 = (a + 1) + sign * (a - 1) * cosW + root
        let a1 = -sign * 2 * ((a - 1) + sign * (a + 1) * cosW)
        let a2 = (a + 1) + sign * (a - 1) * cosW - root
        return Biquad(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }
}

struct BiquadState: Sendable {
    var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
}
