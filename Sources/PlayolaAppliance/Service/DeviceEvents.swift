import PlayolaEngine
import Synchronization

/// The engine's device events → the player's state, the log (once per change) and systemd's STATUS.
final class DeviceEvents: Sendable {
    private struct Links: Sendable {
        var player: StationPlayer
        var notifier: SystemdNotifier
        var device: String
    }
    private let links = Mutex<Links?>(nil)

    func connect(player: StationPlayer, notifier: SystemdNotifier, device: String) {
        links.withLock { $0 = Links(player: player, notifier: notifier, device: device) }
    }

    func handle(_ event: LiveEngine.DeviceEvent) {
        guard let links = links.withLock({ $0 }) else { return }
        switch event {
        case .opened:
            log(.info, "audio device \(links.device) is open")
        case .lost(let error):
            log(.warning, "\(error); waiting for it to come back", key: "device-lost")
            _ = links.notifier.status("waiting for the audio device \(links.device)")
        case .closedIdle:
            log(.info, "audio device \(links.device) closed after a long silence; it opens again on play")
        case .waiting(let error):
            log(.warning, "\(error); waiting for the audio device", key: "device-lost")
            _ = links.notifier.ready(status: "waiting for the audio device \(links.device)")
        }
        Task { await links.player.deviceChanged(event) }
    }
}
