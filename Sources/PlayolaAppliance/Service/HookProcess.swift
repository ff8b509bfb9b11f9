import Glibc
import PlayolaApplianceSupport
import PlayolaConfig
import PlayolaEngine

/// One run of the `[hooks] on_change` program: spawned into a process group of its own with the status on its
/// standard input, waited for until its time-out, then its whole group ended (SIGTERM, and SIGKILL a second
/// later). It runs on the hook thread only; posix_spawn starts it with vfork semantics (no copy of the
/// service's pages), so the audio threads never wait on it.
enum HookProcess {
    enum Outcome: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// Still running at the time-out: its group was ended.
        case killed(after: Double)
        case couldNotStart(String)

        var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was ended by signal \(signal)"
            case .killed(let seconds): "was still running after \(DurationText.describe(seconds)), its time-out: killed with its children"
            case .couldNotStart(let reason): "could not be started: \(reason)"
            }
        }
    }

    /// What a run said on standard output and error, at most this much (the rest is read and dropped).
    static let keptOutput = 4096
    /// How often a run's end is looked for besides its output closing (a hook may close it and go on).
    static let lookInterval: Int32 = 25
    /// The service's own ties to systemd, which a hook must not inherit (a hook writing WATCHDOG=1 would feed
    /// the watchdog of a wedged service).
    static let withheldEnvironment = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]

    /// Runs `path argument` with `input` on its standard input; returns how it ended, its output (cut) and
    /// how long it took.
    /// `started`: its pid, as soon as it runs (its process group's id too).
    static func run(
        _ path: String, argument: String, input: [UInt8], timeout: Double, started: (pid_t) -> Void = { _ in }
    ) -> (outcome: Outcome, output: String, seconds: Double) {
        let began = monotonicSeconds()
        var stdinPipe: [Int32] = [-1, -1], outputPipe: [Int32] = [-1, -1]
        guard closeOnExec(pipe(&stdinPipe), stdinPipe) else { return (.couldNotStart("pipe: \(Errno.current)"), "", 0) }
        guard closeOnExec(pipe(&outputPipe), outputPipe) else {
            stdinPipe.forEach { close($0) }
            return (.couldNotStart("pipe: \(Errno.current)"), "", 0)
        }
        defer { close(outputPipe[0]) }
        let spawned = spawn(path, argument, stdin: stdinPipe[0], output: outputPipe[1])
        close(stdinPipe[0])
        close(outputPipe[1])
        guard case .success(let pid) = spawned else {
            close(stdinPipe[1])
            if case .failure(let error) = spawned { return (.couldNotStart(error.description), "", 0) }
            return (.couldNotStart("unknown"), "", 0)
        }
        started(pid)
        // Below the service's threads: a hook that computes hard takes what they leave.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), 10)
        feed(input, to: stdinPipe[1])
        var output: [UInt8] = []
        let outcome = wait(for: pid, output: outputPipe[0], into: &output, until: began + timeout, timeout: timeout)
        return (outcome, String(decoding: output, as: UTF8.self), monotonicSeconds() - began)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later: bookworm, trixie), which Swift's
    /// Glibc module does not declare (it is a GNU extension), looked up once.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Whether `pipe` made its two ends; they are marked close-on-exec (the child gets them as 0, 1 and 2 only).
    private static func closeOnExec(_ result: Int32, _ fds: [Int32]) -> Bool {
        guard result == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// The status line: all of it when the pipe takes it at once (it holds 64 KiB, a status 3 KiB), and what
    /// it takes otherwise; a hook that does not read its input is never waited for.
    private static func feed(_ input: [UInt8], to fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = input.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private static func spawn(_ path: String, _ argument: String, stdin: Int32, output: Int32) -> Result<pid_t, Errno> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        // Nothing else of the service's (its decoders' files are not all close-on-exec): a hook's leftover
        // child holding the sound card's or a socket's descriptor would keep it open after the service let go.
        _ = closeFrom?(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group, so the time-out ends what it started too; no signal blocked, SIGPIPE as usual.
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let words: [String] = [path, argument]
        var argv = words.map { strdup($0) } + [nil]
        var environment: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if !withheldEnvironment.contains(where: { text.hasPrefix($0 + "=") }) { environment.append(text) }
            entry += 1
        }
        var envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let started = posix_spawn(&pid, path, &actions, &attributes, &argv, &envp)
        return started == 0 ? .success(pid) : .failure(Errno(started))
    }

    /// Reads its output and looks for its end until `deadline`; then ends its group.
    private static func wait(for pid: pid_t, output fd: Int32, into kept: inout [UInt8], until deadline: Double, timeout: Double) -> Outcome {
        var chunk = [UInt8](repeating: 0, count: 4096)
        var outputOpen = true
        while true {
            if let ended = reaped(pid) { return ended }
            let left = deadline - monotonicSeconds()
            if left <= 0 { break }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = min(lookInterval, Int32(left * 1000) + 1)
            if outputOpen, poll(&entry, 1, wait) > 0 {
                let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if got > 0 {
                    kept += chunk[0..<min(got, max(0, keptOutput - kept.count))]
                } else if got == 0 {
                    outputOpen = false
                }
            } else if !outputOpen {
                usleep(UInt32(wait) * 1000)
            }
        }
        kill(-pid, SIGTERM)
        for _ in 0..<40 {
            if reaped(pid) != nil { break }
            usleep(25_000)
        }
        kill(-pid, SIGKILL)
        // SIGKILL cannot be refused; the reap follows at once (but never block the hook thread for good on it).
        for _ in 0..<200 where reaped(pid) == nil { usleep(25_000) }
        return .killed(after: timeout)
    }

    /// How it ended, once it has; nil while it runs.
    private static func reaped(_ pid: pid_t) -> Outcome? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result < 0 && errno == ECHILD ? .exited(-1) : nil }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot call: the low 7 bits are the signal, 0 on an exit.
        return status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
    }
}
