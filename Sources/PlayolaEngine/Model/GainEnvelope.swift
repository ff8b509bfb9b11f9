/// The gain of a spin as a pure function of the position in its file.
///
/// `startingVolume` holds until the first fade; each fade ramps linearly (in amplitude) over
/// `rampMS` from the level actually reached to its `toVolume`; a fade that starts during a ramp
/// starts from the level that ramp had reached, so the gain never jumps.
public struct GainEnvelope: Sendable, Equatable {
    public static let rampMS = 1500.0

    /// Breakpoints (position in ms, gain), ascending; the gain is linear between them and constant
    /// before the first and after the last.
    public let points: [(ms: Double, gain: Float)]

    public static func == (lhs: GainEnvelope, rhs: GainEnvelope) -> Bool {
        lhs.points.elementsEqual(rhs.points) { $0.ms == $1.ms && $0.gain == $1.gain }
    }

    public init(startingVolume: Float, fades: [Fade]) {
        let sorted = fades.sorted { $0.atMS < $1.atMS }
        var points: [(ms: Double, gain: Float)] = [(0, Fade.gain(startingVolume))]
        var level = Fade.gain(startingVolume)
        for (index, fade) in sorted.enumerated() {
            // Clamped again: `Fade.atMS` is a public var, and the render thread turns these into frame counts.
            let start = Double(Fade.clamped(fade.atMS))
            let end = start + Self.rampMS
            let next = index + 1 < sorted.count ? Double(Fade.clamped(sorted[index + 1].atMS)) : .infinity
            points.append((start, level))
            if next < end {
                let fraction = Float((next - start) / Self.rampMS)
                level += (Fade.gain(fade.toVolume) - level) * fraction
                points.append((next, level))
            } else {
                level = Fade.gain(fade.toVolume)
                points.append((end, level))
            }
        }
        self.points = points
    }

    /// The gain at `ms` milliseconds into the file.
    public func gain(atMS ms: Double) -> Float {
        guard ms > points[0].ms else { return points[0].gain }
        var low = 0
        var high = points.count - 1
        if ms >= points[high].ms { return points[high].gain }
        while high - low > 1 {
            let mid = (low + high) / 2
            if points[mid].ms <= ms { low = mid } else { high = mid }
        }
        let a = points[low]
        let b = points[high]
        guard b.ms > a.ms else { return b.gain }
        return a.gain + (b.gain - a.gain) * Float((ms - a.ms) / (b.ms - a.ms))
    }

    /// The index of the segment `[points[i], points[i+1])` that contains `ms` (or the last point).
    package func segmentIndex(atMS ms: Double) -> Int {
        var index = 0
        while index + 1 < points.count, points[index + 1].ms <= ms { index += 1 }
        return index
    }
}
