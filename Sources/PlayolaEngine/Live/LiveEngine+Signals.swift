import Synchronization

/// The live engine's atomics, one struct per thread that writes them, so who writes what is in the type:
/// the render thread publishes (`RenderPublished`), the decode thread publishes and asks (`DecodePublished`),
/// the controller (the API's callers: the player, the watchdog) asks (`ControlRequests`).
extension LiveEngine {
    /// Written by the render thread only; read by the decode thread and the API.
    struct RenderPublished: ~Copyable, Sendable {
        /// Mix frames written to the device so far (taken back by a rewind).
        let framesWritten = Atomic<Int64>(0)
        /// The latest (frames heard, monotonic µs) reading, which the program clock follows; 0 µs while no device has a reading.
        let heardFrame = Atomic<Int64>(0)
        let heardMicros = Atomic<Int64>(0)
        /// A start from silence (bench/startup.sh): while the device holds only silence at its end, a spin placed
        /// now replaces that silence instead of queueing behind it, so `play` sounds in tens of ms rather than
        /// after the device's buffer. `quietFrom` is the first mix frame of that trailing silence (Int64.max while
        /// a voice is in what was written), `replaceableFrom` the first frame the device can still take back.
        ///
        /// alsa-lib's conversion plugins (a `plug` from S32 to a 16-bit card) say only their last write can be
        /// taken back, and such a rewind is not trusted: a device that can take back no more than two blocks
        /// publishes no `replaceableFrom`, so no spin is placed on its silence and it is never asked to rewind.
        let quietFrom = Atomic<Int64>(.max)
        let replaceableFrom = Atomic<Int64>(.max)
        /// Bumped each time a device is opened; the decode side re-places the program.
        let deviceGeneration = Atomic<Int>(0)
        let deviceOpen = Atomic<Bool>(false)
        /// The open device's negotiated rate and format (`OutputFormat.packed`); 0 while none is open.
        let openFormat = Atomic<Int>(0)
    }

    /// Written by the decode thread, except that the render thread takes (clears) the rewind it asked for.
    struct DecodePublished: ~Copyable, Sendable {
        /// Bumped at every pass of the decode loop: the watchdog's evidence that decoding is not wedged (the
        /// render thread plays silence on its own, so frames advancing prove nothing about it).
        let passes = Atomic<Int64>(0)
        /// The request to take back what was written from this frame on, for a start from silence
        /// (`RenderPublished.quietFrom`); Int64.max: none.
        let rewindTo = Atomic<Int64>(.max)
    }

    /// Written by the controller through the API; read by the render and decode threads.
    struct ControlRequests: ~Copyable, Sendable {
        let running = Atomic<Bool>(false)
        /// The master gain (`Float` bits) the render thread ramps to.
        let gain = Atomic<UInt32>(Float(1).bitPattern)
        /// Bass and treble, as `ToneControl.packed`: applied after the gain, on the render thread.
        let tone = Atomic<UInt32>(0)
        /// Neither program nor stream: the device may close after `idleClose`.
        let programEmpty = Atomic<Bool>(true)
    }
}
