import Dispatch
import PlayolaEngine
import Synchronization
import PlayolaConfig

/// What the buttons, encoder and LEDs do to the rest of the appliance. All called on the GPIO thread, which
/// also times the buttons: hand work on (to a Task) rather than wait for it here.
package struct GPIOActions: Sendable {
    var perform: @Sendable (ButtonAction) -> Void
    /// A volume change in percentage points: ±`GPIOControls.volumePerDetent` per detent, with
    /// `encoder_action = volume` (with `station`, detents come to `perform` as next/previous station).
    var encoderStep: @Sendable (Int) -> Void
    /// Read a few times a second while a status LED is configured: return a snapshot, do not ask the player.
    var ledState: @Sendable () -> LEDState
    /// True while the last network operation failed: lights the network LED.
    var networkTrouble: @Sendable () -> Bool = { false }
    /// A fault on the lines while the thread runs (for the log).
    var fault: @Sendable (GPIOFault) -> Void = { _ in }

    package init(
        perform: @escaping @Sendable (ButtonAction) -> Void, encoderStep: @escaping @Sendable (Int) -> Void,
        ledState: @escaping @Sendable () -> LEDState, networkTrouble: @escaping @Sendable () -> Bool = { false },
        fault: @escaping @Sendable (GPIOFault) -> Void = { _ in }
    ) {
        self.perform = perform
        self.encoderStep = encoderStep
        self.ledState = ledState
        self.networkTrouble = networkTrouble
        self.fault = fault
    }
}

/// The buttons, encoder and LEDs, on one thread of their own that sleeps until the next edge or deadline.
package final class GPIOService: Sendable {
    /// How often the LED state is read when nothing else wakes the thread, and so how soon `stop` is seen.
    static let pollInterval = 0.25

    private let stopping = Atomic<Bool>(false)
    /// nil when there is no thread: nothing was configured.
    private let finished: DispatchSemaphore?

    private init(finished: DispatchSemaphore?) { self.finished = finished }

    /// Requests the configured lines (from a named pipe with `chip = fake:PATH`) and starts the thread. Does
    /// nothing when no line is configured.
    package static func start(config: GPIOConfig, led: ApplianceConfig.LED, actions: GPIOActions) throws(GPIOError) -> GPIOService {
        let inputs = GPIOControls.inputs(of: config), outputs = LEDDriver(led).lines
        guard !inputs.isEmpty || !outputs.isEmpty else { return GPIOService(finished: nil) }
        if let path = FIFOLineSource.path(ofChip: config.chip) {
            return start(config: config, led: led, actions: actions, source: try FIFOLineSource(path: path, fault: actions.fault))
        }
        // Idle contacts are held away from their pressed level: up when a press pulls to ground.
        let source = try LibgpiodLineSource(chip: config.chip, inputs: inputs, outputs: outputs,
                                            bias: config.activeLow ? .pullUp : .pullDown, fault: actions.fault)
        return start(config: config, led: led, actions: actions, source: source)
    }

    /// The thread, on any line source; `source` belongs to the thread from here on.
    static func start(config: GPIOConfig, led: ApplianceConfig.LED, actions: GPIOActions,
                      source: sending any GPIOLineSource) -> GPIOService {
        let service = GPIOService(finished: DispatchSemaphore(value: 0))
        let handoff = Handoff(source)
        startThread(named: "playola-gpio") {
            handoff.slot.withLock { slot in
                guard let source = slot else { return }
                var loop = GPIOLoop(config: config, led: led, source: source, actions: actions)
                while !service.stopping.load(ordering: .acquiring) { loop.turn(maximumWait: pollInterval) }
                loop.finish()
                // The lines are released here, before `stop` returns, so a restarted service can take them.
                slot = nil
            }
            service.finished?.signal()
        }
        return service
    }

    /// Stops the thread and releases the lines, the LEDs dark; returns once they are free, within about
    /// `pollInterval`.
    package func stop() {
        guard let finished, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }
}

/// Carries a line source to the GPIO thread: the lock is taken once, by that thread, for its whole life.
private final class Handoff: Sendable {
    let slot: Mutex<(any GPIOLineSource)?>

    init(_ source: sending any GPIOLineSource) { slot = Mutex(source) }
}
