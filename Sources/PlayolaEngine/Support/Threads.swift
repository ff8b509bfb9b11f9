import Glibc

/// Starts a detached POSIX thread running `body`: the engine's long-lived threads (network, decode,
/// render) are plain threads with names, not tasks, so they never wait behind the cooperative pool.
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    let context = Unmanaged.passRetained(Box(name, body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
        // The name shows in top -H, ps and perf (the kernel keeps 15 bytes). Through /proc, because Glibc's
        // module does not export pthread_setname_np (a _GNU_SOURCE function).
        if let comm = try? FileDescriptor.open("/proc/thread-self/comm", O_WRONLY) {
            _ = Array(box.name.utf8.prefix(15)).withUnsafeBytes { try? comm.writeAll($0) }
            comm.close()
        }
        box.body()
        return nil
    }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    pthread_detach(thread)
}

/// Seconds on CLOCK_MONOTONIC: for timeouts and cadences, immune to the wall clock being set.
public func monotonicSeconds() -> Double { seconds(on: CLOCK_MONOTONIC) }

/// CPU seconds this thread has used (CLOCK_THREAD_CPUTIME_ID): what a piece of work costs, whatever else the
/// machine is doing.
public func threadCPUSeconds() -> Double { seconds(on: CLOCK_THREAD_CPUTIME_ID) }

@inline(__always)
private func seconds(on clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
