import Synchronization

/// A value another thread writes and `status()` reads: the fleet's broker link, the buttons' wait.
package final class Reported<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    package init() {}

    /// nil: nothing to report.
    package var current: Value? { value.withLock { $0 } }

    package func set(_ new: Value?) { value.withLock { $0 = new } }
}
