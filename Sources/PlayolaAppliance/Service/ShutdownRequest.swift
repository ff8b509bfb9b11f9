import Glibc

/// Powers the board off through systemd (the shutdown button), so nobody pulls the plug on a writing SD card.
enum ShutdownRequest {
    static func powerOff() -> Bool {
        var pid = pid_t()
        let arguments = ["systemctl", "poweroff"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        return posix_spawnp(&pid, "systemctl", nil, nil, &argv, environ) == 0
    }
}
