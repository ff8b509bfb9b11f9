import CALSA
import CALSAQuiet
import Glibc
import PlayolaSupport

/// Plays the mix on an ALSA PCM. Opens it non-blocking, negotiates the sample format (in order of
/// preference), the rate (the one asked for, else the other of 48/44.1 kHz — never ALSA's resampler) and
/// a buffer of `bufferTime`. All error recovery is in `recover`, which decides by the error and the PCM
/// state, as MPD's `Recover()` does; callers see typed errors only for what they must act on.
public final class ALSASink: AudioSink {
    public let device: String
    public let sampleRate: Int
    public let format: SampleFormat
    public var sampleFormat: SampleFormat? { format }
    public let bytesPerSample: Int
    public let bufferFrames: Int
    public let periodFrames: Int
    private var periodMilliseconds: Int { max(1, periodFrames * 1000 / sampleRate) }
    private let pcm: OpaquePointer
    private let scratch: UnsafeMutableRawPointer
    private let scratchFrames: Int
    /// Frames the device had room for when last asked, less those written since. Room only grows as the device
    /// plays (or is rewound), so this is a floor, and `awaitRoom` asks alsa-lib again only once it is used up:
    /// through a `plug` and a `file` plugin, as the benchmark's device is, an ask costs about what the write does.
    private var knownRoom = 0
    /// The PCM's poll descriptors and, last, a wake event's: allocated once, so the wait never allocates.
    private let pollSet: UnsafeMutablePointer<pollfd>
    private let pcmDescriptors: Int
    /// Underruns in a row without a successful write between them.
    private var consecutiveXruns = 0
    /// Frames written since the PCM was opened: with the delay, whether a device that stalls ever took one.
    private var framesSinceOpen = 0
    private static let maxConsecutiveXruns = 8

    private static let candidates: [(SampleFormat, snd_pcm_format_t, Int)] = [
        (.s32, SND_PCM_FORMAT_S32_LE, 4), (.s24, SND_PCM_FORMAT_S24_LE, 4), (.s24, SND_PCM_FORMAT_S24_3LE, 3),
        (.float32, SND_PCM_FORMAT_FLOAT_LE, 4), (.s16, SND_PCM_FORMAT_S16_LE, 2),
    ]

    /// Our errors say what alsa-lib's own stderr lines would, with the device and the action.
    private static let silenceLibraryOnce: Void = { calsa_silence_library_errors() }()

    public init(
        device: String, sampleRate: Int = 48000, formats: [SampleFormat] = [.s32, .s24, .float32, .s16],
        bufferTime: Double = 0.3
    ) throws(AudioSinkError) {
        self.device = device
        Self.silenceLibraryOnce
        var params: OpaquePointer?
        snd_pcm_hw_params_malloc(&params)
        defer { snd_pcm_hw_params_free(params) }
        // Non-blocking, so a device that stops taking frames (a wedged DAC, a stalled dmix) is seen by the
        // timeout of `snd_pcm_wait` instead of hanging a blocking write forever. First without a `plug`'s
        // format conversion: a plug offers every format and would turn our S32 into the card's own (most USB
        // DACs: S16 or S24_3LE), a conversion that can take back only its last write, so queued silence
        // could not be replaced (start from silence). A card that takes none of ours is opened again with it.
        var opened = try Self.open(device, mode: SND_PCM_NONBLOCK | SND_PCM_NO_AUTO_FORMAT, params, formats: formats, sampleRate: sampleRate)
        if case .failure = opened { opened = try Self.open(device, mode: SND_PCM_NONBLOCK, params, formats: formats, sampleRate: sampleRate) }
        let agreed: Negotiated
        switch opened {
        case .success(let negotiated): agreed = negotiated
        case .failure(let refusal): throw .unsupported(device: device, reason: refusal.reason)
        }
        pcm = agreed.pcm
        var bufferTimeUS = UInt32(bufferTime * 1_000_000)
        var periodTimeUS = bufferTimeUS / 6
        var direction: Int32 = 0
        snd_pcm_hw_params_set_buffer_time_near(pcm, params, &bufferTimeUS, &direction)
        snd_pcm_hw_params_set_period_time_near(pcm, params, &periodTimeUS, &direction)
        let applied = snd_pcm_hw_params(pcm, params)
        guard applied >= 0 else {
            snd_pcm_close(pcm)
            throw Self.classify(applied, device: device, during: "configure")
        }
        var bufferSize: snd_pcm_uframes_t = 0
        var periodSize: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_buffer_size(params, &bufferSize)
        snd_pcm_hw_params_get_period_size(params, &periodSize, &direction)
        var software: OpaquePointer?
        snd_pcm_sw_params_malloc(&software)
        snd_pcm_sw_params_current(pcm, software)
        snd_pcm_sw_params_set_start_threshold(pcm, software, bufferSize / 2)
        snd_pcm_sw_params_set_avail_min(pcm, software, periodSize)
        snd_pcm_sw_params(pcm, software)
        snd_pcm_sw_params_free(software)

        self.sampleRate = Int(agreed.rate)
        self.format = agreed.format
        self.bytesPerSample = agreed.bytes
        self.bufferFrames = Int(bufferSize)
        self.periodFrames = Int(periodSize)
        scratchFrames = max(1024, Int(periodSize))
        scratch = .allocate(byteCount: scratchFrames * 2 * 4, alignment: 16)
        pcmDescriptors = Int(max(0, snd_pcm_poll_descriptors_count(pcm)))
        pollSet = .allocate(capacity: pcmDescriptors + 1)
    }

    private struct Refusal: Error { var reason: String }

    /// What a PCM agreed to: our sample format, its bytes per sample on the device, and the rate.
    private struct Negotiated {
        var pcm: OpaquePointer
        var format: SampleFormat
        var bytes: Int
        var rate: UInt32
    }

    /// Opens `device` in `mode` and negotiates into `params` interleaved stereo in the first of `formats` it
    /// takes, at `sampleRate` or the other common rate; a PCM that refuses is closed again, and says why.
    private static func open(
        _ device: String, mode: Int32, _ params: OpaquePointer?, formats: [SampleFormat], sampleRate: Int
    ) throws(AudioSinkError) -> Result<Negotiated, Refusal> {
        var handle: OpaquePointer?
        let status = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, mode)
        guard status >= 0, let pcm = handle else { throw classify(status, device: device, during: "open") }
        snd_pcm_hw_params_any(pcm, params)
        snd_pcm_hw_params_set_rate_resample(pcm, params, 0)
        let refusal: String
        if snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED) < 0 {
            refusal = "interleaved access refused"
        } else if snd_pcm_hw_params_set_channels(pcm, params, 2) < 0 {
            refusal = "stereo refused"
        } else if let (ours, _, bytes) = candidates.first(where: { ours, theirs, _ in
            formats.contains(ours) && snd_pcm_hw_params_test_format(pcm, params, theirs) == 0
                && snd_pcm_hw_params_set_format(pcm, params, theirs) == 0
        }) {
            for rate in [sampleRate, sampleRate == 44100 ? 48000 : 44100] where snd_pcm_hw_params_set_rate(pcm, params, UInt32(rate), 0) == 0 {
                return .success(Negotiated(pcm: pcm, format: ours, bytes: bytes, rate: UInt32(rate)))
            }
            refusal = "neither 48000 nor 44100 Hz is accepted"
        } else {
            refusal = "no sample format of \(formats.map(\.rawValue)) is accepted"
        }
        snd_pcm_close(pcm)
        return .failure(Refusal(reason: refusal))
    }

    deinit {
        snd_pcm_close(pcm)
        scratch.deallocate()
        pollSet.deallocate()
    }

    /// Polls the PCM's descriptors (as `snd_pcm_wait` does, their events translated by the PCM, which for a
    /// plugin may be another descriptor's) and the wake event's together. Any failure returns: the write that
    /// follows recovers from it or says what it is.
    public func awaitRoom(for frames: Int, orUntil wake: WakeEvent) {
        guard knownRoom < frames else { return }
        let deadline = monotonicSeconds() + Double(periodMilliseconds * 2 + 50) / 1000
        while true {
            let available = snd_pcm_avail_update(pcm)
            knownRoom = max(0, available)
            guard available >= 0, available < frames, snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING else { return }
            let filled = snd_pcm_poll_descriptors(pcm, pollSet, UInt32(pcmDescriptors))
            guard filled > 0 else { return }
            pollSet[Int(filled)] = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = Int32((deadline - monotonicSeconds()) * 1000)
            guard remaining > 0, poll(pollSet, nfds_t(filled) + 1, remaining) > 0 else { return }
            if pollSet[Int(filled)].revents != 0 {
                wake.clear()
                return
            }
            var events: UInt16 = 0
            guard snd_pcm_poll_descriptors_revents(pcm, pollSet, UInt32(filled), &events) >= 0,
                  events & UInt16(POLLOUT | POLLERR | POLLHUP | POLLNVAL) == 0 else { return }
        }
    }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) throws(AudioSinkError) {
        try format.convert(samples, frames: frames, in: scratchFrames, into: scratch, bytesPerSample: bytesPerSample) {
            (chunk, count) throws(AudioSinkError) in
            var written = 0
            var stalledSince: Double?
            while written < count {
                let result = snd_pcm_writei(pcm, chunk + written * 2 * bytesPerSample, snd_pcm_uframes_t(count - written))
                if result > 0 {
                    written += result
                    knownRoom = max(0, knownRoom - result)
                    framesSinceOpen += result
                    consecutiveXruns = 0
                    stalledSince = nil
                } else if result == 0 || result == -Int(EAGAIN) {
                    // The buffer is full: wait for room, at most two periods plus slack at a time.
                    let waited = snd_pcm_wait(pcm, Int32(periodMilliseconds * 2 + 50))
                    if waited == 0 {
                        let now = monotonicSeconds()
                        if let since = stalledSince, now - since > max(0.5, Double(periodMilliseconds * 2) / 1000) {
                            // Two reasons, each said as it is: a device that played and stopped (unplugged, wedged),
                            // or one that has not taken a frame since it was opened (a card not yet running).
                            let started = framesSinceOpen > delay()
                            throw .deviceGone(device: device, reason: started ? "the device stopped taking frames"
                                                                            : "the device never started taking frames")
                        }
                        stalledSince = stalledSince ?? now
                    } else if waited < 0 {
                        try recover(waited)
                    }
                } else {
                    try recover(Int32(result))
                }
            }
        }
    }

    public func drain() throws(AudioSinkError) {
        snd_pcm_nonblock(pcm, 0) // drain waits for the buffer to play out
        let result = snd_pcm_drain(pcm)
        snd_pcm_nonblock(pcm, 1)
        if result < 0 { try recover(result) }
    }

    /// Frames written but not yet heard: what to add to "now" to know when the next write is heard.
    public func delay() -> Int {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &frames) == 0 ? max(0, frames) : 0
    }

    public func rewindableFrames() -> Int { max(0, Int(snd_pcm_rewindable(pcm))) }

    public func rewind(frames: Int) -> Int {
        let frames = min(frames, rewindableFrames())
        guard frames > 0 else { return 0 }
        let taken = max(0, Int(snd_pcm_rewind(pcm, snd_pcm_uframes_t(frames))))
        knownRoom += taken
        return taken
    }

    /// The one place that decides what an ALSA error means.
    private func recover(_ error: Int32) throws(AudioSinkError) {
        if snd_pcm_state(pcm) == SND_PCM_STATE_DISCONNECTED {
            throw .deviceGone(device: device, reason: "disconnected")
        }
        switch -error {
        case EPIPE:
            consecutiveXruns += 1
            guard consecutiveXruns <= Self.maxConsecutiveXruns else { throw .xrun(device: device) }
            let prepared = snd_pcm_prepare(pcm)
            if prepared < 0 { throw Self.classify(prepared, device: device, during: "recover from underrun") }
        case ESTRPIPE:
            var attempts = 0
            var resumed = snd_pcm_resume(pcm)
            while resumed == -EAGAIN && attempts < 20 {
                usleep(50_000)
                attempts += 1
                resumed = snd_pcm_resume(pcm)
            }
            if resumed < 0 && snd_pcm_prepare(pcm) < 0 { throw .suspended(device: device) }
        case EINTR:
            return
        default:
            throw Self.classify(error, device: device, during: "write")
        }
    }

    static func classify(_ error: Int32, device: String, during action: String) -> AudioSinkError {
        let reason = "\(action): " + String(cString: snd_strerror(error))
        switch -error {
        case ENODEV, ENOENT, EBADFD, EIO, ENXIO, EBUSY: return .deviceGone(device: device, reason: reason)
        case ESTRPIPE: return .suspended(device: device)
        case EPIPE: return .xrun(device: device)
        default: return .unsupported(device: device, reason: reason)
        }
    }
}
