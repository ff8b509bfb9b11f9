import FoundationEssentials
import Glibc
import PlayolaEngine

/// `playola update FILE|URL` and `playola update --check`, as root on the image: the A/B firmware update
/// where there is a shell, and the daily look at `[update] url` (playola-update-check.timer). Verifying,
/// writing the other slot and restarting into it are RAUC's, through the image's installer; this command
/// checks what it is handed first, so a typo is said here and not in RAUC's terms, and for `--check` asks
/// the server only for the bundle's headers, so an unchanged bundle costs one HEAD request a day.
enum UpdateCommand {
    static let help = """
        usage: playola update [--allow-older] FILE|URL
               playola update --check [--config FILE]

        Installs the signed update bundle FILE or URL (http:// or https://) into the slot not running, then
        restarts into it; the new slot is kept once the service plays there, else the board returns to this
        one by itself. Progress and the outcome are in `playola status` (Update:) and the journal.
        --check: the bundle named by [update] url in the config (default: \(ConfigLocation.searchDescription),
        the first that exists), installed only when the server's ETag, Last-Modified date or size differ from
        those of the last one installed from there (playola-update-check.timer runs it once a day).
        Exits 0 when installed (the board is restarting) or nothing was to do, 1 when refused or unreachable,
        2 on a wrong command line. A package install has no slots: apt update && apt upgrade updates it.
        Updates only go forward: a bundle not newer than the version running (or than the newest this board
        has run) is refused. --allow-older installs an older FILE all the same (a URL's, never).
        """

    /// The image's installer (image/files/usr/lib/playola/firmware-update); `PLAYOLA_FIRMWARE_UPDATE`
    /// replaces it in tests.
    static var installer: String { environment("PLAYOLA_FIRMWARE_UPDATE") ?? "/usr/lib/playola/firmware-update" }
    /// What `--check` last installed from: the URL and the server's validators, one line each.
    static var seenFile: String { environment("PLAYOLA_UPDATE_SEEN") ?? "/var/lib/persistent/update/seen-url" }

    static func run(_ words: [String]) async -> Int32 {
        if words.contains(where: { $0 == "--help" || $0 == "-h" }) {
            Console.out(help)
            return 0
        }
        let arguments: Arguments
        do {
            arguments = try Arguments(words, valued: ["config"], flags: ["check", "allow-older"], positionalLimit: 1)
            if arguments.flags.contains("check") == !arguments.positional.isEmpty {
                throw UsageError(arguments.positional.isEmpty ? "expected FILE, URL or --check" : "--check takes no FILE or URL")
            }
            if arguments.options["config"] != nil, !arguments.flags.contains("check") {
                throw UsageError("--config goes with --check")
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
        return await check(configPath: arguments.options["config"])
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

    static func check(configPath: String?) async -> Int32 {
        let location = ConfigLocation.resolve(explicit: configPath)
        let (config, diagnostics) = ApplianceConfig.load(path: location.path)
        for diagnostic in Diagnostic.bounded(diagnostics) { Console.error(diagnostic.description) }
        guard let config else {
            Console.error("playola update --check: \(location.path) has errors: nothing checked")
            return 1
        }
        guard let url = config.update.url else {
            Console.out("\(location.path): no [update] url: nothing to check")
            return 0
        }
        let headers: HTTPResponse
        do {
            headers = try await HTTPClient().send(HTTPRequest(url: url, method: .head, timeout: 60))
        } catch {
            Console.error("playola update --check: \(LogField.escaped(url)): \(error)")
            return 1
        }
        let validators = ["etag", "last-modified", "content-length"].compactMap { name in headers.header(name).map { "\(name): \($0)" } }
        guard !validators.isEmpty else {
            Console.error("playola update --check: \(LogField.escaped(url)) names no ETag, Last-Modified or Content-Length: a new bundle cannot be told from the last")
            return 1
        }
        let seen = ([url] + validators).joined(separator: "\n") + "\n"
        if case .success(let last) = WholeFile.read(seenFile, limit: 4096), last == Data(seen.utf8) {
            Console.out("\(LogField.escaped(url)): unchanged since the last install from it (\(validators.joined(separator: ", ")))")
            return 0
        }
        Console.out("\(LogField.escaped(url)): a bundle not installed before (\(validators.joined(separator: ", "))): installing")
        let status = spawn(installer, ["install", url], environment: ["FIRMWARE_UPDATE_RESTART=no"])
        // Kept once the installer has answered, either way, and before the restart into the new slot: a
        // bundle RAUC refused is not fetched again every day, only once it changes (or by hand, `playola
        // update URL`); one whose install a power cut stopped is.
        do {
            // Root's alone: the URL may carry credentials.
            try WholeFile.write(Data(seen.utf8), to: seenFile, mode: 0o600)
        } catch {
            Console.error("playola update --check: \(error)")
        }
        if status == 0 { _ = spawn(installer, ["restart"]) }
        return status
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
