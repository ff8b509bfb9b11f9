import Glibc
import PlayolaConfig
import PlayolaControl
import PlayolaApplianceSupport
import PlayolaEngine
import Synchronization

/// `[hooks] on_change`: the program run at each change of the spin, the station or the state, with the status
/// line on its standard input and what changed as its argument (pianobar's `event_command` is the model). One
/// run at a time, in the order of the changes, on a thread of its own: the feed only queues a change here, so
/// a slow or hung hook delays nothing but the next hook run, and the run after a time-out is killed.
package final class HookRunner: Sendable {
    /// What makes a run: the changes a listener of the radio notices. The volume, the device, the network and
    /// the queue are in the status the hook reads, but do not run it.
    package static let triggers: Set<StatusAspect> = [.spin, .station, .state]
    /// Changes waiting while a run goes on; beyond them the oldest is dropped (and said), so a hook slower
    /// than the changes cannot make the queue grow.
    package static let queueLimit = 16

    private struct Pending: Sendable {
        package var argument: String
        package var input: [UInt8]
    }

    private let settings: Mutex<HookSettings>
    private let queue = Mutex<(items: [Pending], dropped: Int)>(([], 0))
    private let wake: Mailbox<Bool>
    /// The thread starts with the first run: a service without a hook has none.
    private let started = Mutex(false)
    /// The run going on now (its process group), for `stop`.
    private let running = Mutex<pid_t?>(nil)

    package init(settings: HookSettings) throws(ControlError) {
        self.settings = Mutex(settings)
        wake = try Mailbox()
    }

    /// The service stops: a run going on now is ended with its children, and no other starts (systemd would
    /// end them with the unit; a service run by hand must not leave them behind either).
    package func stop() {
        settings.withLock { $0.onChange = nil }
        if let pid = running.withLock({ $0 }) { kill(-pid, SIGKILL) }
    }

    /// A reload's `[hooks]`: the next run uses it.
    package func update(_ new: HookSettings) { settings.withLock { $0 = new } }

    /// Queues a run for `change` when it is one that runs the hook and a hook is configured.
    package func changed(_ change: ChangeFeed.Change) {
        guard settings.withLock({ $0.onChange }) != nil, change.aspects.contains(where: Self.triggers.contains) else { return }
        let pending = Pending(argument: change.aspects.filter(Self.triggers.contains).map(\.rawValue).joined(separator: ","),
                              input: Array((change.line + "\n").utf8))
        queue.withLock { queue in
            queue.items.append(pending)
            if queue.items.count > Self.queueLimit {
                queue.items.removeFirst()
                queue.dropped += 1
            }
        }
        if started.withLock({ started in defer { started = true }; return !started }) {
            startThread(named: "playola-hooks") { [self] in run() }
        }
        wake.post(true)
    }

    private func run() {
        while true {
            var entry = pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, -1)
            _ = wake.take()
            while let (next, dropped) = queue.withLock({ queue -> (Pending, Int)? in
                guard !queue.items.isEmpty else { return nil }
                defer { queue.dropped = 0 }
                return (queue.items.removeFirst(), queue.dropped)
            }) {
                if dropped > 0 {
                    log(.warning, "hook: \(dropped) changes were not run: the hook takes longer than the changes come", key: "hook-dropped")
                }
                let current = settings.withLock { $0 }
                guard let path = current.onChange else { continue }
                let (outcome, output, seconds) = HookProcess.run(path, argument: next.argument, input: next.input, timeout: current.timeout) { pid in
                    running.withLock { $0 = pid }
                }
                running.withLock { $0 = nil }
                let took = "\(Int((seconds * 1000).rounded())) ms"
                if outcome == .exited(0) {
                    log(.debug, "hook \(path) \(next.argument): done in \(took)")
                } else {
                    let said = output.split(separator: "\n").last.map { ": \(String($0).cut(to: 200))" } ?? ""
                    log(.warning, "hook \(path) \(next.argument) \(outcome) (\(took))\(said)", key: "hook-failed")
                }
            }
        }
    }
}
