import PlayolaEngine
import Synchronization
import PlayolaGPIO
import PlayolaControl
import PlayolaConfig
import PlayolaApplianceSupport

/// The GPIO buttons, encoder and LEDs, restarted when the config is re-read.
final class Buttons: Sendable {
    private let controller: ApplianceController
    private let leds = Mutex<LEDState>(.loading)
    private let service = Mutex<GPIOService?>(nil)

    init(controller: ApplianceController) { self.controller = controller }

    func start(_ config: ApplianceConfig) {
        stop()
        let controller = self.controller
        do throws(GPIOError) {
            let started = try GPIOService.start(config: config.gpio, led: config.led, actions: GPIOActions(
                perform: { action in Task { await controller.handle(action) } },
                encoderStep: { points in Task { await controller.changeVolume(by: points) } },
                ledState: { [self] in self.leds.withLock { $0 } },
                // Lit while the station's server cannot be reached (a Playola station's API, a stream's server).
                networkTrouble: { controller.player.cannotReachServer },
                fault: { fault in log(fault.isWarning ? .warning : .error, "\(fault)", key: fault.key) }))
            service.withLock { $0 = started }
        } catch {
            // Buttons are a convenience: the radio plays without them, and says why they do not work.
            log(.error, "GPIO: \(error)")
        }
    }

    func stop() { service.withLock { $0 }?.stop() }

    func show(_ state: LEDState) { leds.withLock { $0 = state } }
}

extension LEDState {
    init(_ state: PlayerState, hasDevice: Bool) {
        switch state {
        case .playing: self = .playing
        case .loading: self = hasDevice ? .loading : .waitingForDevice
        case .paused(_, let reason) where reason.isForTheDevice: self = .waitingForDevice
        case .paused: self = .paused
        case .idle: self = .idle
        case .error: self = .error
        }
    }
}
