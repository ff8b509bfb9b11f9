import Glibc
import PlayolaConfig
import PlayolaControl
import PlayolaApplianceSupport
import PlayolaEngine
import Synchronization

/// `[remote]`: MPD's protocol on a TCP port, served by a `RemoteLoop` on a thread of its own, or nothing at
/// all with `listen = off` (the default: no socket is made). A reload that changes the section stops the
/// old server and starts the new one; a port that cannot be had is said in the log, and the radio plays on.
package final class RemoteServer: Sendable {
    private let controller: ApplianceController
    private let queue = MPDQueue()
    private let gate = PasswordGate()
    private let limits: MPDLimits
    private let current = Mutex<(settings: RemoteSettings, loop: RemoteLoop?)>((RemoteSettings.unset, nil))

    package init(controller: ApplianceController, limits: MPDLimits = MPDLimits()) {
        self.controller = controller
        self.limits = limits
        // One listener for the life of the service, handing each change to whichever loop runs now.
        controller.changes.listen { [self] change in
            current.withLock { $0.loop }?.changed(MPDSubsystem.of(change.aspects))
        }
    }

    /// Serves `settings` from now on (nothing when it is what is served already).
    package func apply(_ settings: RemoteSettings) {
        let unchanged = current.withLock { $0.settings == settings && ($0.loop != nil || settings.listen == .off) }
        guard !unchanged else { return }
        let old = current.withLock { current in
            defer { current = (settings, nil) }
            return current.loop
        }
        // Waits for its sockets to be closed, so the new loop can take the same port.
        old?.stop()
        if old != nil { log(.info, "remote control: stopped") }
        guard settings.listen != .off else { return }
        do throws(ControlError) {
            let sockets = try Self.listen(settings)
            let (controller, queue, gate) = (self.controller, self.queue, self.gate)
            let loop: RemoteLoop
            do {
                loop = try RemoteLoop(listening: sockets, limits: limits, authorizedAtStart: settings.password == nil) { peer in
                    MPDCommands.Context(controller: controller, queue: queue, gate: gate, password: settings.password, peer: peer)
                }
            } catch {
                sockets.forEach { close($0) }
                throw error
            }
            current.withLock { $0.loop = loop }
            startThread(named: "playola-remote") { loop.run() }
            log(.info, "remote control (MPD's protocol): \(settings)")
        } catch {
            log(.error, "remote control: \(error); the radio plays on without it")
        }
    }

    /// The listening sockets: 127.0.0.1, or every address (IPv6 and IPv4 on one socket, IPv4 alone where
    /// the kernel has no IPv6).
    package static func listen(_ settings: RemoteSettings) throws(ControlError) -> [Int32] {
        let port = UInt16(settings.port).bigEndian
        if settings.listen == .lan {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port
            address.sin6_addr = in6addr_any
            if let fd = try? bound(AF_INET6, address, settings, dualStack: true) { return [fd] }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port
        address.sin_addr.s_addr = (settings.listen == .lan ? INADDR_ANY : INADDR_LOOPBACK).bigEndian
        return [try bound(AF_INET, address, settings, dualStack: false)]
    }

    private static func bound<Address>(_ family: Int32, _ address: Address, _ settings: RemoteSettings, dualStack: Bool) throws(ControlError) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .usage("socket: \(Errno.current)") }
        var on: Int32 = 1, off: Int32 = 0
        // A restart finds the port in TIME_WAIT from the last run's clients: it is ours to take again at once.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if dualStack { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size)) }
        var copy = address
        let result = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard result == 0, Glibc.listen(fd, 64) == 0 else {
            let reason = Errno.current
            close(fd)
            throw .usage("cannot listen on \(settings.listen == .lan ? "every address" : "127.0.0.1"), port \(settings.port): \(reason)")
        }
        return fd
    }
}
