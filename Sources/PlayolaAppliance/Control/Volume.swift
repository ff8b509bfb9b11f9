import Glibc

/// Volume in percent → linear gain on a perceptual curve: 60 dB of range, 0 is silence.
enum Volume {
    static func gain(percent: Int) -> Float {
        guard percent > 0 else { return 0 }
        let clamped = Double(min(100, percent))
        return Float(pow(10, (clamped / 100 - 1) * 60 / 20))
    }
}
