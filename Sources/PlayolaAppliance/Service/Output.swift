import PlayolaEngine

/// Where the audio goes: the configured ALSA device (opened again each time it comes back), or a WAV file
/// at real-time pace (`--output`, or `--fallback` when the device cannot be opened at start).
struct Output: Sendable {
    let name: String
    let open: @Sendable () throws(AudioSinkError) -> any AudioSink

    init(_ arguments: Arguments, config: ApplianceConfig) throws {
        let device = config.player.device
        let rate = config.player.rate
        if let path = arguments.options["output"] {
            let sink = SinkHandoff(RealTimePacer(try WAVFileSink(path: path, sampleRate: rate)))
            name = path
            open = { sink.sink }
            return
        }
        if let path = arguments.options["fallback"] {
            do {
                _ = try ALSASink(device: device, sampleRate: rate)
            } catch {
                log(.warning, "\(error); playing into \(path) instead")
                let sink = SinkHandoff(RealTimePacer(try WAVFileSink(path: path, sampleRate: rate)))
                name = path
                open = { sink.sink }
                return
            }
        }
        name = device
        open = { () throws(AudioSinkError) -> any AudioSink in try ALSASink(device: device, sampleRate: rate) }
    }
}
