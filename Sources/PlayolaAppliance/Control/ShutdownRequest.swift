import Glibc
import PlayolaEngine

/// Powers the board off through systemd (the shutdown button), so nobody pulls the plug on a writing SD card.
enum ShutdownRequest {
    /// Watched by playola-poweroff.path, which powers off as root: the service runs unprivileged, and an
    /// unprivileged `systemctl poweroff` fails without D-Bus and polkit ("Failed to connect to bus"), which an
    /// appliance image does not have. The directory is the unit's RuntimeDirectory, writable only by us.
    static let requestPath = "/run/playola/poweroff"

    static func powerOff(requestPath: String = requestPath) -> Bool {
        if let request = try? FileDescriptor.open(requestPath, O_WRONLY | O_CREAT, permissions: 0o640) {
            request.close()
            return true
        }
        // Not under the packaged units (run by hand, as root): ask systemd directly.
        var pid = pid_t()
        let arguments = ["systemctl", "poweroff"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        return posix_spawnp(&pid, "systemctl", nil, nil, &argv, environ) == 0
    }
}
