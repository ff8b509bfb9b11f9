import PlayolaEngine

/// The engine's device events → the log (once per change) and systemd's STATUS (`PlayerStack` hands them to the player).
struct DeviceEvents: Sendable {
    let notifier: SystemdNotifier
    let device: String

    func handle(_ event: LiveEngine.DeviceEvent) {
        switch event {
        case .opened:
            log(.info, "audio device \(device) is open")
        case .lost(let error):
            log(.warning, "\(error); waiting for it to come back", key: "device-lost")
            _ = notifier.status("waiting for the audio device \(device)")
        case .closedIdle:
            log(.info, "audio device \(device) closed after a long silence; it opens again on play")
        case .waiting(let error):
            log(.warning, "\(error); waiting for the audio device", key: "device-lost")
            _ = notifier.ready(status: "waiting for the audio device \(device)")
        }
    }
}
