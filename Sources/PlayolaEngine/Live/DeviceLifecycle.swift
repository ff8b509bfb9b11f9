import PlayolaOutput

/// The output device's life, decided apart from the thread that lives it: the render thread reports what
/// happened (an open that worked or failed, a block written, a write that failed) and performs the action
/// returned (open, close, post an event, wait). The machine owns every decision about announcing — a device
/// is said back only once it has played 0.1 s, so one that opens and takes no frames (a wedged DAC) does not
/// flap between opened and lost every probe, and each change is said once — and it is tested on its own on a
/// scripted clock (`DeviceLifecycleTests`).
///
/// Held in a local of the render thread and fed plain values: it never allocates, locks, logs or reads a
/// clock, so it may run on the real-time path.
package struct DeviceLifecycle: Sendable {
    package enum State: Sendable, Equatable {
        /// At start, before the first attempt to open.
        case waiting
        /// Away with no loss said: the first attempt failed (`waiting` was said), or a device parked on purpose
        /// did not open again. Attempts go on every `probeInterval`.
        case probing
        /// Opened at `openedAt`, not yet said: confirmed once the frame `heardBy` is heard (0.1 s). `afterLoss`:
        /// a loss was said and no device has been confirmed since, so a failure now is one more failed attempt.
        case confirming(openedAt: Double, heardBy: Int64, afterLoss: Bool)
        /// Confirmed and said.
        case open
        /// Closed after `idleClose` with nothing to play; opened again when the program fills.
        case parked(afterLoss: Bool)
        /// A loss was said, and no device has been confirmed since. Attempts go on every `probeInterval`.
        case lost
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Open the device, and report `opened` or `openFailed`.
        case open
        /// Wait this many seconds, or until woken (a udev event, a program).
        case wait(seconds: Double)
        case post(LiveEngine.DeviceEvent)
        case postAndWait(LiveEngine.DeviceEvent, seconds: Double)
        /// Drop the device (closing the PCM) and say why.
        case close(post: LiveEngine.DeviceEvent)
    }

    package private(set) var state = State.waiting
    /// When nothing started to play on the open device (nil: something plays); survives a device that goes away.
    private var idleSince: Double?
    private let probeInterval: Double
    private let idleClose: Double?
    private let confirmFrames: Int64
    /// How often a parked device looks at the program when nothing wakes it.
    private let parkedRecheck = 1.0

    /// - Parameters:
    ///   - confirmFrames: frames heard after which an opened device is said back (0.1 s of the mix).
    ///   - idleClose: seconds with nothing to play after which the device is closed (nil: never).
    package init(probeInterval: Double, idleClose: Double?, confirmFrames: Int64) {
        self.probeInterval = probeInterval
        self.idleClose = idleClose
        self.confirmFrames = confirmFrames
    }

    /// The render thread has no device: open one, or (parked, with nothing to play) wait.
    package func withoutDevice(programEmpty: Bool) -> Action {
        if case .parked = state, programEmpty { return .wait(seconds: parkedRecheck) }
        return .open
    }

    /// The device opened when `framesWritten` frames had been written, at `now` (monotonic seconds).
    package mutating func opened(framesWritten: Int64, at now: Double) {
        state = .confirming(openedAt: now, heardBy: framesWritten + confirmFrames, afterLoss: lossSaid)
    }

    package mutating func openFailed(_ error: AudioSinkError) -> Action {
        switch state {
        case .waiting:
            state = .probing
            return .postAndWait(.waiting(error), seconds: probeInterval)
        case .parked(let afterLoss):
            state = afterLoss ? .lost : .probing
            return .postAndWait(.attemptFailed(error, openFor: nil), seconds: probeInterval)
        case .probing, .lost, .confirming, .open:
            return .postAndWait(.attemptFailed(error, openFor: nil), seconds: probeInterval)
        }
    }

    /// A write failed at `now`: the device is gone (or will not play).
    package mutating func writeFailed(_ error: AudioSinkError, at now: Double) -> Action {
        defer { state = .lost }
        if case .confirming(let openedAt, _, afterLoss: true) = state {
            return .close(post: .attemptFailed(error, openFor: now - openedAt))
        }
        return .close(post: .lost(error))
    }

    /// A block was written at `now`; `idle`: nothing to play and no voice sounding.
    package mutating func wroteBlock(idle: Bool, at now: Double) -> Action {
        guard let idleClose, idle else {
            idleSince = nil
            return .none
        }
        guard now - (idleSince ?? now) > idleClose else {
            idleSince = idleSince ?? now
            return .none
        }
        idleSince = nil
        state = .parked(afterLoss: lossSaid)
        return .close(post: .closedIdle)
    }

    /// After a block, the frame the listener hears now.
    package mutating func heard(_ frame: Int64) -> Action {
        guard case .confirming(_, let heardBy, _) = state, frame >= heardBy else { return .none }
        state = .open
        return .post(.opened)
    }

    /// A loss was said and no device has been confirmed since.
    private var lossSaid: Bool {
        switch state {
        case .lost, .confirming(_, _, afterLoss: true), .parked(afterLoss: true): true
        case .waiting, .probing, .confirming, .open, .parked: false
        }
    }
}
