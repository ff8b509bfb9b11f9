/// Holds a stream voice's buffer at its level by playing a little faster or slower than the stream arrives:
/// the server's clock and the DAC's drift apart (at 100 ppm, 0.36 s an hour), so without it one side
/// overflows or runs dry.
///
/// The buffer's level (seconds of audio decoded, not yet heard) is read just after each decode pass filled
/// it; until the next pass it falls by exactly the time that passes, so each interval's mean is known
/// exactly and the sawtooth of chunked arrivals (decode passes, HLS segments) does not alias. Those means go
/// through two 10 s low-passes. The first 60 s after the voice
/// sounds, or after it recovered from running dry, only settle the filters; their level then becomes the
/// target, so the listener's delay is never changed, only held. A critically damped PI loop (time constant
/// 250 s) then sets the correction: the integral learns the clocks' difference, and the buffer's error
/// settles to zero. The correction is limited to ±1000 ppm (1.7 cents) and moves at most 2 ppm a second:
/// far below the 0.3 % (5 cents) a trained listener hears as a pitch change on a held tone, and too slow
/// to hear as a glide.
public struct DriftController: Sendable {
    public struct Tuning: Sendable {
        /// Seconds, of each of the two low-passes on the level.
        public var smoothing = 10.0
        /// Seconds the filters settle before the level they show becomes the target.
        public var settling = 60.0
        /// Seconds, of the PI loop.
        public var timeConstant = 250.0
        /// The largest correction, as a fraction (1e-3 = 1000 ppm).
        public var limit = 1e-3
        /// The fastest the correction moves, per second.
        public var slew = 2e-6

        public init() {}
    }

    public let tuning: Tuning
    /// Input frames per output frame, minus 1: positive plays faster than 1:1.
    public private(set) var correction = 0.0
    /// Seconds of buffer the loop holds, once settled.
    public private(set) var target: Double?
    /// The smoothed level, seconds.
    public private(set) var level = 0.0

    private var stage = 0.0
    private var integral = 0.0
    private var lastTime: Double?
    private var lastReading = 0.0
    private var settledAt = 0.0

    public init(tuning: Tuning = Tuning()) {
        self.tuning = tuning
    }

    /// Starts settling again from the next reading (the voice refilled after running dry, so its level is a
    /// new one); the correction learned so far stays, since the clocks still differ by as much.
    public mutating func resettle() {
        lastTime = nil
        target = nil
    }

    /// Takes a reading of the buffer (`level` seconds at monotonic `time`, just after it was filled);
    /// returns the correction.
    @discardableResult
    public mutating func update(level reading: Double, at time: Double) -> Double {
        guard let last = lastTime else {
            lastTime = time
            lastReading = reading
            stage = reading
            level = reading
            settledAt = time + tuning.settling
            return correction
        }
        // A long gap (the decode thread held up) is not a long integration.
        let elapsed = min(time - last, tuning.smoothing)
        guard elapsed > 0 else { return correction }
        lastTime = time
        let mean = lastReading - elapsed / 2
        lastReading = reading
        let blend = elapsed / (tuning.smoothing + elapsed)
        stage += blend * (mean - stage)
        level += blend * (stage - level)
        guard let target else {
            if time >= settledAt { self.target = level }
            return correction
        }
        let error = level - target
        let proportional = 2 / tuning.timeConstant
        let integralGain = 1 / (tuning.timeConstant * tuning.timeConstant)
        let wanted = proportional * error + integralGain * (integral + error * elapsed)
        let reach = tuning.slew * elapsed
        let applied = max(-tuning.limit, min(tuning.limit, max(correction - reach, min(correction + reach, wanted))))
        // Integrate only while the output follows the loop (no wind-up while slewing or at the limit).
        if applied == wanted { integral += error * elapsed }
        correction = applied
        return correction
    }
}
