import Foundation
import Glibc
import PlayolaEngine
import Synchronization
import XCTest

private let interruptions = Atomic<Int>(0)

/// The POSIX layer against the real kernel: a signal really interrupts a blocked read, errno's text is libc's.
final class POSIXTests: XCTestCase {
    /// A thread blocked in `read` on an empty pipe is hit by SIGUSR2 (installed without SA_RESTART, so the
    /// kernel returns EINTR): the bare call fails with EINTR, and through `retryOnInterrupt` the same call
    /// survives three signals and returns the byte written after them.
    func testRetryOnInterruptOutlastsRealSignals() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        XCTAssertEqual(sigaction(SIGUSR2, &action, &previous), 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { fds.forEach { close($0) } }
        let (readEnd, writeEnd) = (fds[0], fds[1])

        let bare = try blockedRead(signals: 1) { buffer in
            let result = read(readEnd, buffer, 1)
            return result < 0 ? -Int(errno) : result
        }
        XCTAssertEqual(bare, -Int(EINTR), "the signal interrupts a bare read")

        let retried = try blockedRead(signals: 3, thenWrite: writeEnd) { buffer in
            (try? retryOnInterrupt { read(readEnd, buffer, 1) }) ?? -1
        }
        XCTAssertEqual(retried, 1, "retryOnInterrupt reads the byte that came after the signals")
    }

    /// Runs `call` on a thread of its own, signals that thread `signals` times once it is blocked (each signal
    /// seen by the handler before the next), optionally writes one byte to `writeEnd`, and returns what `call` returned.
    private func blockedRead(signals: Int, thenWrite writeEnd: Int32? = nil, _ call: @escaping @Sendable (UnsafeMutableRawPointer) -> Int) throws -> Int {
        let result = Mutex<(thread: pthread_t?, value: Int?)>((nil, nil))
        let thread = Thread {
            result.withLock { $0.thread = pthread_self() }
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
            defer { buffer.deallocate() }
            let value = call(buffer)
            result.withLock { $0.value = value }
        }
        thread.start()
        let deadline = Date().addingTimeInterval(10)
        while result.withLock({ $0.thread }) == nil { usleep(1000) }
        usleep(100_000) // into the read
        for _ in 0..<signals {
            let before = interruptions.load(ordering: .relaxed)
            guard result.withLock({ $0.value }) == nil || writeEnd != nil else { break }
            pthread_kill(result.withLock { $0.thread }!, SIGUSR2)
            while interruptions.load(ordering: .relaxed) == before && Date() < deadline { usleep(1000) }
            usleep(50_000) // back into the read, if it was retried
        }
        if let writeEnd {
            XCTAssertNil(result.withLock { $0.value }, "still blocked after the signals")
            var byte: UInt8 = 7
            XCTAssertEqual(write(writeEnd, &byte, 1), 1)
        }
        while result.withLock({ $0.value }) == nil && Date() < deadline { usleep(1000) }
        return try XCTUnwrap(result.withLock { $0.value }, "the read returned")
    }

    func testErrnoReadsAsLibcText() throws {
        XCTAssertEqual(Errno(ENOENT).description, "No such file or directory")
        XCTAssertEqual("\(Errno(ENOSPC))", "No space left on device")
        errno = EACCES
        XCTAssertEqual(Errno.current, Errno(EACCES))
        XCTAssertThrowsError(try FileDescriptor.open("/nonexistent/playola", O_RDONLY)) { error in
            XCTAssertEqual(error as? Errno, .noEntry)
        }
    }

    /// Whole reads stop at the limit before allocating past it; whole writes write everything.
    func testWholeReadsAndWrites() throws {
        let path = NSTemporaryDirectory() + "/posix-\(UUID().uuidString)"
        defer { unlink(path) }
        let file = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_TRUNC, permissions: 0o600)
        defer { file.close() }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try bytes.withUnsafeBytes { try file.writeAll($0) }
        XCTAssertEqual(try file.size(), 100_000)
        XCTAssertEqual(lseek(file.rawValue, 0, SEEK_SET), 0)
        XCTAssertNil(try file.readAll(limit: 99_999))
        XCTAssertEqual(lseek(file.rawValue, 0, SEEK_SET), 0)
        XCTAssertEqual(try file.readAll(limit: 100_000), bytes)
        var tail = [UInt8](repeating: 0, count: 10)
        XCTAssertEqual(try tail.withUnsafeMutableBytes { try file.read(into: $0, at: 99_995) }, 5)
        XCTAssertEqual(Array(tail[0..<5]), Array(bytes[99_995...]))
    }

    func testUnixSocketAddressesFitSunPath() {
        XCTAssertNotNil(UnixSocketAddress(path: "/run/playola/control.sock"))
        XCTAssertNotNil(UnixSocketAddress(path: "/" + String(repeating: "a", count: 106)), "107 bytes and the NUL")
        XCTAssertNil(UnixSocketAddress(path: "/" + String(repeating: "a", count: 107)), "no room for the NUL")
        XCTAssertNil(UnixSocketAddress(abstract: ""), "an empty abstract name")
        XCTAssertNotNil(UnixSocketAddress(abstract: String(repeating: "a", count: 107)))
        XCTAssertNotNil(UnixSocketAddress(named: "/run/systemd/notify"))
        XCTAssertNotNil(UnixSocketAddress(named: "@systemd-notify"))
        XCTAssertNil(UnixSocketAddress(named: "run/relative"))
        XCTAssertNil(UnixSocketAddress(named: "vsock:2:1234"))
    }
}
