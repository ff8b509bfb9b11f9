import Glibc

/// Starts a detached POSIX thread running `body`: the engine's long-lived threads (network, decode,
/// render) are plain threads with names, not tasks, so they never wait behind the cooperative pool.
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        box.body()
        return nil
    }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    pthread_detach(thread)
}

/// Seconds on CLOCK_MONOTONIC: for timeouts and cadences, immune to the wall clock being set.
public func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
