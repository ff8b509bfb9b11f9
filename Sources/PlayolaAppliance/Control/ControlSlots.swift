import Glibc

/// Who may take one more of the control socket's slots. Any member of the socket's group may connect, so
/// one of them reconnecting in a loop could hold every slot and lock the others out (and the udev helper,
/// and root): each user other than root and the service's own gets at most `perUser` slots, and the last
/// `reserved` of them are kept for root and the service's user alone.
struct ControlSlots: Sendable {
    var total: Int
    var perUser: Int
    var reserved: Int
    /// Root, and the user the service runs as.
    let privileged: Set<uid_t>

    init(total: Int, perUser: Int, reserved: Int, privileged: Set<uid_t> = [0, geteuid()]) {
        (self.total, self.perUser, self.reserved, self.privileged) = (total, perUser, reserved, privileged)
    }

    /// Why a connection of `uid` is refused, or nil when it may have a slot; `held` are the users of the
    /// connections open now, one entry each.
    func refusal(of uid: uid_t, held: some Sequence<uid_t>) -> String? {
        var all = 0
        var own = 0
        for holder in held {
            all += 1
            if holder == uid { own += 1 }
        }
        guard all < total else { return "too many connections to the control socket (\(total)); try again" }
        if privileged.contains(uid) { return nil }
        guard own < perUser else { return "too many connections to the control socket from uid \(uid) (\(perUser)); try again" }
        guard all < total - reserved else {
            return "too many connections to the control socket (\(total - reserved) for users other than root); try again"
        }
        return nil
    }

    /// The user at the other end of a connected Unix socket (SO_PEERCRED), or nil when the kernel does not say.
    static func peerUser(_ fd: Int32) -> uid_t? {
        // struct ucred is { pid_t pid; uid_t uid; gid_t gid; }, three 32-bit fields; Swift's Glibc does not
        // import it (it is behind _GNU_SOURCE).
        var credentials = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(MemoryLayout<UInt32>.size * 3)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, length == 12 else { return nil }
        return credentials[1]
    }
}
