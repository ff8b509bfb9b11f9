import PlayolaEngine
import Synchronization
import PlayolaGPIO
import PlayolaControl
import PlayolaConfig
import PlayolaApplianceSupport

/// The GPIO buttons, encoder and LEDs, restarted when the config is re-read. A chip that cannot be had yet
/// (its group comes from udev after the service started, an I2C expander's overlay loads late, a USB GPIO
/// adapter is plugged in later) is waited for, as the audio device is: tried again until the lines are
/// taken, with `status` saying why the buttons wait.
final class Buttons: Sendable {
    private let controller: ApplianceController
    private let leds = Mutex<LEDState>(.loading)
    private let current = Mutex<Lines>(Lines())

    /// The running lines, or the attempts that wait for them. `generation` counts starts and stops, so an
    /// attempt that succeeds after a stop or a newer start gives its lines back.
    private struct Lines {
        var generation = 0
        var service: GPIOService?
        var waiting: Task<Void, Never>?
    }

    /// Waits between attempts, doubling up to `longestWait`: an open that fails costs a few microseconds, and
    /// buttons that come back at once with their chip are what an owner expects of a radio.
    static let firstWait = 0.25, longestWait = 0.5

    init(controller: ApplianceController) { self.controller = controller }

    func start(_ config: ApplianceConfig) {
        stop()
        let generation = current.withLock { $0.generation }
        do throws(GPIOError) {
            try take(config, generation: generation)
        } catch where error.mayClear {
            log(.error, "GPIO: \(error); the buttons are taken as soon as this clears")
            say(error.description, generation: generation)
            let waiting = Task { [self] in await wait(for: config, generation: generation, failed: error) }
            current.withLock { lines in
                if lines.generation == generation { lines.waiting = waiting } else { waiting.cancel() }
            }
        } catch {
            // Buttons are a convenience: the radio plays without them, and says why they do not work.
            log(.error, "GPIO: \(error)")
        }
    }

    func stop() {
        let (service, waiting) = current.withLock { lines in
            lines.generation += 1
            defer { (lines.service, lines.waiting) = (nil, nil) }
            return (lines.service, lines.waiting)
        }
        waiting?.cancel()
        service?.stop()
        controller.buttonsWaiting.set(nil)
    }

    func show(_ state: LEDState) { leds.withLock { $0 = state } }

    /// Takes the lines and keeps them, unless `generation` has passed meanwhile: then false.
    @discardableResult
    private func take(_ config: ApplianceConfig, generation: Int) throws(GPIOError) -> Bool {
        let controller = self.controller
        let started = try GPIOService.start(config: config.gpio, led: config.led, actions: GPIOActions(
            perform: { action in Task { await controller.handle(action) } },
            encoderStep: { points in Task { await controller.changeVolume(by: points) } },
            ledState: { [self] in self.leds.withLock { $0 } },
            // Lit while the station's server cannot be reached (a Playola station's API, a stream's server).
            networkTrouble: { controller.player.cannotReachServer },
            fault: { fault in log(fault.isWarning ? .warning : .error, "\(fault)", key: fault.key) }))
        let kept = current.withLock { lines in
            guard lines.generation == generation else { return false }
            lines.service = started
            return true
        }
        if !kept { started.stop() }
        return kept
    }

    /// What `status` says of the buttons (nil: nothing, they work), unless `generation` has passed.
    private func say(_ waiting: String?, generation: Int) {
        current.withLock { lines in
            if lines.generation == generation { controller.buttonsWaiting.set(waiting) }
        }
    }

    private func wait(for config: ApplianceConfig, generation: Int, failed first: GPIOError) async {
        let since = monotonicSeconds()
        var last = first, pause = Self.firstWait
        while true {
            guard (try? await Task.sleep(for: .seconds(pause))) != nil else { return }
            pause = min(pause * 2, Self.longestWait)
            do throws(GPIOError) {
                guard try take(config, generation: generation) else { return }
                log(.notice, "GPIO: the buttons work now, after waiting \(Int((monotonicSeconds() - since).rounded())) s")
                say(nil, generation: generation)
                return
            } catch {
                guard error != last else { continue }
                last = error
                log(.warning, "GPIO: still waiting: \(error)")
                guard error.mayClear else { say(nil, generation: generation); return }
                say(error.description, generation: generation)
            }
        }
    }
}

extension GPIOError {
    /// Whether the same config can work later without an edit: the chip or its lines are missing, not
    /// accessible or busy now. A line given by offset with no chip to count it on cannot.
    var mayClear: Bool {
        if case .needsChip = self { return false }
        return true
    }
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
