import Glibc
import PlayolaEngine

/// The control socket: a Unix stream socket, one request per line (`ControlRequest`), one JSON answer each.
/// Group-restricted (mode 0660): members of the service's group may control it.
///
/// Clients are served concurrently by one poll(2) loop (`ControlLoop`); the commands themselves run as
/// tasks on the controller, so a slow or silent client never delays another.
package enum ControlServer {
    /// Binds `path` and serves on a thread of its own. Throws a message when the socket cannot be made.
    package static func start(path: String, controller: ApplianceController, limits: ControlLoop.Limits = .init()) throws(ControlError) {
        let fd = try bind(path)
        let loop: ControlLoop
        do {
            loop = try ControlLoop(listening: fd, limits: limits, feed: controller.changes) { line in
                await ControlCommands.handle(line, controller: controller)
            }
        } catch {
            close(fd)
            throw error
        }
        startThread(named: "playola-control") { loop.run() }
    }

    /// A listening, non-blocking Unix socket at `path` (any old socket there is replaced).
    package static func bind(_ path: String) throws(ControlError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .usage("control socket: \(Errno.current)") }
        guard let address = UnixSocketAddress(path: path) else {
            close(fd)
            throw .usage("control socket path too long: \(path)")
        }
        let parent = path.split(separator: "/").dropLast().joined(separator: "/")
        if !parent.isEmpty { mkdir("/" + parent, 0o750) }
        unlink(path)
        let bound = address.withSockaddr { Glibc.bind(fd, $0, $1) }
        // A deep backlog: a burst of connections waits in the kernel for the loop rather than being refused.
        guard bound == 0, listen(fd, 512) == 0 else {
            let reason = Errno.current.description
            close(fd)
            throw .usage("control socket \(path): \(reason)")
        }
        chmod(path, 0o660)
        return fd
    }
}
