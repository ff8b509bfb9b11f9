import PlayolaEngine
import Synchronization
import PlayolaApplianceSupport

/// The engine's device events → the log (once per change) and systemd's STATUS (`PlayerStack` hands them to the player).
/// While the device is away, each distinct reason a failed attempt gives is said once (with how long the device
/// had been open, when it had opened), so a device that opens and fails again is seen, and why, without a storm.
final class DeviceEvents: Sendable {
    let notifier: SystemdNotifier
    let device: String
    /// The reasons said since the device last played.
    private let said = Mutex<Set<String>>([])

    init(notifier: SystemdNotifier, device: String) {
        self.notifier = notifier
        self.device = device
    }

    func handle(_ event: LiveEngine.DeviceEvent) {
        switch event {
        case .opened:
            said.withLock { $0.removeAll() }
            log(.info, "audio device \(device) is open")
        case .lost(let error):
            said.withLock { _ = $0.insert(error.description) }
            // Limited per reason: an earlier loss (or the wait at start) does not hide a new one.
            log(.warning, "\(error); waiting for it to come back", key: "device-lost: \(error)")
            _ = notifier.status("waiting for the audio device \(device)")
        case .closedIdle:
            log(.info, "audio device \(device) closed after a long silence; it opens again on play")
        case .waiting(let error):
            said.withLock { _ = $0.insert(error.description) }
            log(.warning, "\(error); waiting for the audio device", key: "device-lost: \(error)")
            _ = notifier.ready(status: "waiting for the audio device \(device)")
        case .attemptFailed(let error, let openFor):
            guard said.withLock({ $0.insert(error.description).inserted }) else { return }
            if let openFor {
                let seconds = (openFor * 100).rounded() / 100
                log(.warning, "\(error), \(seconds) s after it opened and before it played; opening it again", key: "device-retry")
            } else {
                log(.warning, "\(error); still waiting for it", key: "device-retry")
            }
        }
    }
}
