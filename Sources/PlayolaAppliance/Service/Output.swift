import PlayolaApplianceSupport
import PlayolaConfig
import PlayolaEngine

/// Where the audio goes: the configured ALSA device (opened again each time it comes back), or a WAV file
/// at real-time pace (`--output`, or `--fallback` when the device cannot be opened at start).
struct Output: Sendable {
    let name: String
    /// The rate the engine mixes at: the configured one, or for `rate = auto` the device's.
    let mixRate: Int
    let open: @Sendable () throws(AudioSinkError) -> any AudioSink

    /// The rate of Playola's files (and of most streams): mixing at it spares their resampling.
    static let contentRate = 44100
    /// `rate = auto` with no device at start: 48 kHz, the default before `auto`, which every DAC takes;
    /// a device that appears later is then never refused for its rate.
    static let absentDeviceRate = 48000

    init(_ arguments: Arguments, config: ApplianceConfig) throws {
        let device = config.player.device
        let forced = config.player.rate
        if let path = arguments.options["output"] {
            self = try .wav(path, rate: forced ?? Self.contentRate)
            return
        }
        var rate = forced ?? Self.absentDeviceRate
        let fallback = arguments.options["fallback"]
        // `auto` asks the device for 44.1 kHz once at start, and mixes at the rate it settles at (44.1 kHz,
        // or 48 kHz for a device that refuses it): the content is resampled only where it differs from the
        // device. The engine opens the device again right after.
        if forced == nil || fallback != nil {
            do {
                let probe = try ALSASink(device: device, sampleRate: forced ?? Self.contentRate)
                rate = forced ?? probe.sampleRate
            } catch {
                if let fallback {
                    log(.warning, "\(error); playing into \(fallback) instead")
                    self = try .wav(fallback, rate: forced ?? Self.contentRate)
                    return
                }
            }
        }
        let mixRate = rate
        name = device
        self.mixRate = mixRate
        open = { () throws(AudioSinkError) -> any AudioSink in try ALSASink(device: device, sampleRate: mixRate) }
    }

    private init(name: String, mixRate: Int, open: @escaping @Sendable () throws(AudioSinkError) -> any AudioSink) {
        self.name = name
        self.mixRate = mixRate
        self.open = open
    }

    private static func wav(_ path: String, rate: Int) throws -> Output {
        let sink = SinkHandoff(RealTimePacer(try WAVFileSink(path: path, sampleRate: rate)))
        return Output(name: path, mixRate: rate, open: { sink.sink })
    }
}
