import Dispatch
import Glibc

/// Says when the system's wall clock is set: a board without a real-time clock starts at the date it was
/// last shut down, and its NTP client's first step moves it by hours or months. The kernel ends a timer
/// armed with `TFD_TIMER_CANCEL_ON_SET` on CLOCK_REALTIME whenever that clock is set; Dispatch's own event
/// thread polls its descriptor, so the watch costs no thread and no wake-up until it happens. Whoever
/// sleeps until a wall-clock time can then sleep until it, not look again every second.
public final class ClockSetWatch {
    private let source: any DispatchSourceRead

    /// glibc's timerfd functions, which Swift's Glibc module does not declare (<sys/timerfd.h>), looked up once.
    private typealias Create = @convention(c) (Int32, Int32) -> Int32
    private typealias SetTime = @convention(c) (Int32, Int32, UnsafePointer<itimerspec>, UnsafeMutablePointer<itimerspec>?) -> Int32
    private static let functions: (create: Create, setTime: SetTime)? = {
        guard let create = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "timerfd_create"),
              let setTime = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "timerfd_settime") else { return nil }
        return (unsafeBitCast(create, to: Create.self), unsafeBitCast(setTime, to: SetTime.self))
    }()
    /// <sys/timerfd.h>'s flags (Linux's ABI): TFD_TIMER_ABSTIME, TFD_TIMER_CANCEL_ON_SET.
    private static let absoluteCancelledOnSet: Int32 = 1 | 2

    /// `onSet` runs on a Dispatch queue each time the clock is set. Nil where the kernel or libc has no
    /// such timer (the caller then looks at the clock itself).
    public init?(onSet: @escaping @Sendable () -> Void) {
        guard let functions = Self.functions else { return nil }
        let fd = functions.create(CLOCK_REALTIME, O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        guard Self.arm(fd, functions.setTime) else {
            close(fd)
            return nil
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: .global(qos: .utility))
        source.setEventHandler {
            // The read says ECANCELED (the clock was set); the timer is armed again for the next time.
            var expirations: UInt64 = 0
            _ = read(fd, &expirations, MemoryLayout<UInt64>.size)
            _ = Self.arm(fd, functions.setTime)
            onSet()
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    deinit { source.cancel() }

    /// A timer that never expires on its own (the largest time the kernel takes), cancelled when the clock is set.
    private static func arm(_ fd: Int32, _ setTime: SetTime) -> Bool {
        var never = itimerspec()
        never.it_value.tv_sec = Int(Int32.max)
        return setTime(fd, absoluteCancelledOnSet, &never, nil) == 0
    }
}
