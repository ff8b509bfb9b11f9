import PlayolaEngine
import Synchronization

/// Changes of the service's status, pushed to whoever listens: the control socket's subscribers, the MPD
/// server's idle clients, the hook. Whatever may change the status (a player event, a command, the device)
/// pokes the feed; one task then takes the status, compares it with the last (`StatusDigest`) and publishes
/// what changed, once, to every listener. Pokes that come while it works are one more look, not one each,
/// so a burst costs one status.
package final class ChangeFeed: Sendable {
    package struct Change: Sendable {
        /// Never empty.
        package let aspects: [StatusAspect]
        /// The status after the change, with `changed` set.
        package let report: StatusReport
        /// `report` as one JSON line (no newline), made once for every subscriber.
        package let line: String
    }

    /// Listeners are called on the feed's task, one after the other: each only hands the change on (to a
    /// mailbox, a queue), so none can hold up another or the feed.
    private let listeners = Mutex<[@Sendable (Change) -> Void]>([])
    private let pokes: AsyncStream<Void>
    private let poker: AsyncStream<Void>.Continuation

    package init() {
        (pokes, poker) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Something may have changed: look at the status again.
    package func poke() { poker.yield() }

    package func listen(_ listener: @escaping @Sendable (Change) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Follows the pokes for as long as the service runs; the first look publishes every aspect.
    package func run(status: @escaping @Sendable () async -> StatusReport) async {
        var last: StatusDigest?
        for await _ in pokes {
            var report = await status()
            let digest = StatusDigest(report)
            let aspects = digest.changes(since: last)
            last = digest
            guard !aspects.isEmpty else { continue }
            report.changed = aspects.map(\.rawValue)
            let change = Change(aspects: aspects, report: report, line: ControlReply.line(report))
            for listener in listeners.withLock({ $0 }) { listener(change) }
        }
    }
}
