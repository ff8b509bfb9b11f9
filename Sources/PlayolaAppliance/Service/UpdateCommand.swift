import FoundationEssentials
import Glibc
import PlayolaEngine
import PlayolaControl
import PlayolaConfig
import PlayolaApplianceSupport

/// `playola update FILE|URL` and `playola update --check`: the A/B firmware update where there is a root
/// shell, and the daily look at `[update] url` (playola-update-check.timer). Verifying, writing the other slot
/// and restarting into it are RAUC's, through the image's installer; this command checks what it is handed
/// first, so a typo is said here and not in RAUC's terms, and for `--check` asks the server only for the
/// bundle's headers, so an unchanged bundle costs one HEAD request a day. The daily check runs `--check
/// --decide` as the service user (the unit's `ExecCondition=`): what a server says is parsed without
/// privileges, and root's installer runs only when it finds a bundle not installed before.
enum UpdateCommand {
    static let help = """
        usage: playola update [--allow-older] FILE|URL
               playola update --check [--decide] [--config FILE]

        Installs the signed update bundle FILE or URL (http:// or https://) into the slot not running, then
        restarts into it; the new slot is kept once the service plays there, else the board returns to this
        one by itself. Progress and the outcome are in `playola status` (Update:) and the journal.
        --check: the bundle named by [update] url in the config (default: \(ConfigLocation.searchDescription),
        the first that exists), installed only when the server's ETag, Last-Modified date or size differ from
        those of the last one installed from there, or when the last install did not finish. --decide (the
        daily playola-update-check.timer, as the service user) installs nothing: it exits 0 when the bundle is
        to be installed (by root's installer, next), 1 when there is nothing to do, 255 on an error.
        Exits 0 when installed (the board is restarting) or nothing was to do, 1 when refused or unreachable,
        2 on a wrong command line. A package install has no slots: apt update && apt upgrade updates it.
        Updates only go forward: a bundle not newer than the version running (or than the newest this board
        has run) is refused. --allow-older installs an older FILE all the same (a URL's, never).
        """

    /// The image's installer (image/files/usr/lib/playola/firmware-update); `PLAYOLA_FIRMWARE_UPDATE`
    /// replaces it in tests.
    static var installer: String { environment("PLAYOLA_FIRMWARE_UPDATE") ?? "/usr/lib/playola/firmware-update" }
    /// What `--check` last installed from: the URL and the server's validators, one line each; the service
    /// user's (the check decides as that user), at most `seenLimit` bytes.
    static var seenFile: String { environment("PLAYOLA_UPDATE_SEEN") ?? "/var/lib/playola/update-seen-url" }
    static let seenLimit = 4096
    /// What the installer says on the persistent partition while an install runs, and keeps there when a power
    /// cut or a crash stops it (image/files/usr/lib/playola/firmware-update): such a bundle is fetched again.
    static let unfinished = "did not finish"

    static func run(_ words: [String]) async -> Int32 {
        if words.contains(where: { $0 == "--help" || $0 == "-h" }) {
            Console.out(help)
            return 0
        }
        let arguments: Arguments
        do {
            arguments = try Arguments(words, valued: ["config"], flags: ["check", "decide", "allow-older"], positionalLimit: 1)
            if arguments.flags.contains("check") == !arguments.positional.isEmpty {
                throw UsageError(arguments.positional.isEmpty ? "expected FILE, URL or --check" : "--check takes no FILE or URL")
            }
            if arguments.options["config"] != nil || arguments.flags.contains("decide"), !arguments.flags.contains("check") {
                throw UsageError("--config and --decide go with --check")
            }
            if arguments.flags.contains("allow-older"), arguments.positional.first.map({ $0.contains("://") }) ?? true {
                throw UsageError("--allow-older goes with a FILE: a URL never installs an older bundle")
            }
        } catch {
            Console.error("playola update: \(error)\n\(help)")
            return 2
        }
        guard access(installer, X_OK) == 0 else {
            Console.error("playola update: this system has no A/B slots (no \(installer)): it is updated by its package, apt update && apt upgrade")
            return 1
        }
        if let target = arguments.positional.first { return install(target, allowOlder: arguments.flags.contains("allow-older")) }
        let verdict = await check(configPath: arguments.options["config"])
        if arguments.flags.contains("decide") {
            // ExecCondition=: 0 goes on to root's installer, 1 to 254 stop without a failure, 255 fails the unit.
            switch verdict {
            case .install: return 0
            case .nothingToDo: return 1
            case .failed: return 255
            }
        }
        switch verdict {
        case .install(let url): return spawn(installer, ["install", url])
        case .nothingToDo: return 0
        case .failed: return 1
        }
    }

    enum CheckVerdict: Equatable {
        case install(String)
        case nothingToDo
        case failed
    }

    /// A local file must be a readable regular file; a URL must be http(s), as the config's URLs are.
    static func install(_ target: String, allowOlder: Bool = false) -> Int32 {
        if target.contains("://") {
            guard ConfigValue.httpURL(target) != nil, !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                Console.error("playola update: \(LogField.escaped(target)): a URL must be http:// or https:// and hold no blanks or control characters")
                return 2
            }
        } else {
            var info = stat()
            guard stat(target, &info) == 0 else {
                Console.error("playola update: \(LogField.escaped(target)): \(Errno.current)")
                return 1
            }
            guard info.st_mode & S_IFMT == S_IFREG, access(target, R_OK) == 0 else {
                Console.error("playola update: \(LogField.escaped(target)): not a readable file")
                return 1
            }
        }
        return spawn(installer, ["install"] + (allowOlder ? ["--allow-older"] : []) + [target])
    }

    /// Whether `[update] url` names a bundle to install: one whose validators differ from those of the last
    /// install from there, or the same one again when that install did not finish. Its validators are recorded
    /// before the install is asked for: a bundle the installer refuses is not fetched again until it changes.
    static func check(configPath: String?) async -> CheckVerdict {
        let location = ConfigLocation.resolve(explicit: configPath)
        let (config, diagnostics) = ApplianceConfig.load(path: location.path)
        for diagnostic in Diagnostic.bounded(diagnostics) { Console.error(diagnostic.description) }
        guard let config else {
            Console.error("playola update --check: \(location.path) has errors: nothing checked")
            return .failed
        }
        guard let url = config.update.url else {
            Console.out("\(location.path): no [update] url: nothing to check")
            return .nothingToDo
        }
        let headers: HTTPResponse
        do {
            headers = try await HTTPClient().send(HTTPRequest(url: url, method: .head, timeout: 60))
        } catch {
            Console.error("playola update --check: \(LogField.escaped(url)): \(error)")
            return .failed
        }
        let validators = ["etag", "last-modified", "content-length"].compactMap { name in headers.header(name).map { "\(name): \($0)" } }
        guard !validators.isEmpty else {
            Console.error("playola update --check: \(LogField.escaped(url)) names no ETag, Last-Modified or Content-Length: a new bundle cannot be told from the last")
            return .failed
        }
        let seen = ([url] + validators).joined(separator: "\n") + "\n"
        guard seen.utf8.count <= seenLimit else {
            Console.error("playola update --check: \(LogField.escaped(url)): its URL and validators take \(seen.utf8.count) bytes, more than the \(seenLimit) kept")
            return .failed
        }
        let interrupted = UpdateStatus.current(files: [UpdateStatus.outcomeFile])?.contains(unfinished) ?? false
        if !interrupted, case .success(let last) = WholeFile.read(seenFile, limit: seenLimit), last == Data(seen.utf8) {
            Console.out("\(LogField.escaped(url)): unchanged since the last install from it (\(validators.joined(separator: ", ")))")
            return .nothingToDo
        }
        Console.out("\(LogField.escaped(url)): \(interrupted ? "its last install did not finish" : "a bundle not installed before") (\(validators.joined(separator: ", "))): installing")
        do {
            // The service user's alone: the URL may carry credentials.
            try WholeFile.write(Data(seen.utf8), to: seenFile, mode: 0o600)
        } catch {
            Console.error("playola update --check: \(error)")
        }
        return .install(url)
    }

    /// Runs `path arguments…` with this process's standard streams and environment (plus `environment`,
    /// NAME=VALUE) and returns its exit status.
    private static func spawn(_ path: String, _ arguments: [String], environment: [String] = []) -> Int32 {
        var argv = ([path] + arguments).map { strdup($0) } + [nil]
        var inherited: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            inherited.append(String(cString: pointer))
            entry += 1
        }
        var envp = (inherited + environment).map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let started = posix_spawn(&pid, path, nil, nil, &argv, &envp)
        guard started == 0 else {
            Console.error("playola update: cannot run \(path): \(Errno(started))")
            return 1
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros Swift cannot call: the low 7 bits are the signal, 0 on an exit.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 1
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
