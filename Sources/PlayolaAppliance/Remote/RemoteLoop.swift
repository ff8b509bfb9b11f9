import Glibc
import PlayolaControl
import PlayolaEngine
import Synchronization

/// Serves the MPD clients from one thread with poll(2), as `ControlLoop` serves the control socket: each
/// client a non-blocking socket with its `MPDSession`, its commands run as tasks on the controller, their
/// answers back through a mailbox. What a client may cost is bounded (`MPDLimits`): its line, what waits for
/// it, its silence; a client that sends while it reads nothing stops being read. None of it touches the audio
/// threads, and a client waiting on its answer (a slowed password) holds up no other.
final class RemoteLoop: Sendable {
    /// MPD's protocol version, which clients read from the greeting to know what they may send.
    static let greeting = "OK MPD 0.23.0\n"

    private let listening: [Int32]
    private let limits: MPDLimits
    private let context: @Sendable (_ peer: String) -> MPDCommands.Context
    private let authorizedAtStart: Bool
    private let completions: Mailbox<RemoteCompletion>
    private let changes: Mailbox<Set<MPDSubsystem>>
    private let stopping: Mailbox<Bool>
    private let stopped: Mailbox<Bool>

    struct RemoteCompletion: Sendable {
        var client: Int
        var outcome: MPDCommands.Outcome
    }

    /// `listening`: bound, listening, non-blocking sockets, closed by the loop when it stops.
    init(listening: [Int32], limits: MPDLimits, authorizedAtStart: Bool,
         context: @escaping @Sendable (_ peer: String) -> MPDCommands.Context) throws(ControlError) {
        self.listening = listening
        self.limits = limits
        self.authorizedAtStart = authorizedAtStart
        self.context = context
        completions = try Mailbox()
        changes = try Mailbox()
        stopping = try Mailbox()
        stopped = try Mailbox()
    }

    /// The service's status changed in `subsystems` (from any thread).
    func changed(_ subsystems: Set<MPDSubsystem>) {
        if !subsystems.isEmpty { changes.post(subsystems) }
    }

    /// Ends `run`, and returns once every client and listening socket is closed (2 s at most).
    func stop() {
        stopping.post(true)
        var entry = pollfd(fd: stopped.readEnd, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, 2000)
    }

    private struct Client {
        let fd: Int32
        let peer: String
        var session: MPDSession
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputSent = 0
        /// Monotonic seconds it last sent something, or was answered (the silence `timeout` counts from).
        var lastHeard: Double
        /// Monotonic seconds something of what waits for it was last taken.
        var lastTaken: Double
        /// Closed once what waits for it is written (or `closeBy`).
        var closing = false
        var closeBy = Double.infinity

        var waiting: Int { output.count - outputSent }
    }

    func run() {
        var clients: [Int: Client] = [:]
        var nextID = 0
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var acceptPausedUntil = 0.0
        while true {
            let accepting = monotonicSeconds() >= acceptPausedUntil
            var fds = [pollfd(fd: completions.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: changes.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopping.readEnd, events: Int16(POLLIN), revents: 0)]
            fds += listening.map { pollfd(fd: $0, events: accepting ? Int16(POLLIN) : 0, revents: 0) }
            let firstClient = fds.count
            var ids: [Int] = []
            var earliest = accepting ? Double.infinity : acceptPausedUntil
            for (id, client) in clients {
                var events: Int32 = 0
                if !client.session.executing, !client.closing, client.waiting < limits.pauseReadingAt { events |= POLLIN }
                if client.waiting > 0 { events |= POLLOUT }
                ids.append(id)
                fds.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
                earliest = min(earliest, deadline(of: client))
            }
            let wait = earliest.isFinite ? Int32(max(0, min(60, earliest - monotonicSeconds())) * 1000) + 1 : -1
            // Not retryOnInterrupt: after a signal the loop goes round and waits for the deadlines as they are now.
            if poll(&fds, nfds_t(fds.count), wait) < 0 && Errno.current != .interrupted {
                usleep(100_000) // cannot happen with valid descriptors; never spin if it does
                continue
            }
            let now = monotonicSeconds()
            if fds[2].revents != 0 {
                for client in clients.values { close(client.fd) }
                for fd in listening { close(fd) }
                stopped.post(true)
                return
            }
            if fds[0].revents != 0 {
                for completion in completions.take() {
                    guard var client = clients[completion.client] else { continue }
                    client.lastHeard = now
                    apply(client.session.finished(completion.outcome), to: &client, id: completion.client, now: now)
                    // Lines sent meanwhile (a client may send several before it reads) are next.
                    takeLines(&client, id: completion.client, now: now)
                    clients[completion.client] = client
                }
            }
            if fds[1].revents != 0 {
                let changed = changes.take().reduce(into: Set<MPDSubsystem>()) { $0.formUnion($1) }
                for (id, client) in clients {
                    var client = client
                    apply(client.session.changed(changed), to: &client, id: id, now: now)
                    clients[id] = client
                }
            }
            for (offset, id) in ids.enumerated() {
                guard var client = clients[id] else { continue }
                let revents = Int32(fds[firstClient + offset].revents)
                var open = true
                if revents & POLLIN != 0 { open = receive(&client, id: id, chunk: &chunk, now: now) }
                if open, revents & (POLLHUP | POLLERR) != 0, revents & POLLIN == 0 { open = false }
                if open, client.waiting > 0, revents & POLLOUT != 0 { open = transmit(&client, now: now) }
                if open, client.waiting > limits.outputBytes { open = false }
                if open, now >= deadline(of: client) {
                    sendNow(MPDError(.unknown, "", "nothing for \(Int(limits.timeout)) s; closing").line(at: 0), to: client.fd)
                    open = false
                }
                if open { clients[id] = client } else { close(client.fd); clients[id] = nil }
            }
            for (index, fd) in listening.enumerated() where fds[3 + index].revents != 0 {
                if !accept(fd, into: &clients, nextID: &nextID, now: now) { acceptPausedUntil = now + 0.1 }
            }
            // Those that said their last (`close`, a line too long), once it is written or their second is up.
            for (id, client) in clients where client.closing && (client.waiting == 0 || now >= client.closeBy) {
                close(client.fd)
                clients[id] = nil
            }
        }
    }

    /// When it is closed for saying nothing (not while it waits in idle or on its answer), or for taking
    /// nothing of what waits for it.
    private func deadline(of client: Client) -> Double {
        var deadline = client.closeBy
        if client.waiting > 0 { deadline = min(deadline, client.lastTaken + limits.timeout) }
        if !client.session.isIdle, !client.session.executing { deadline = min(deadline, client.lastHeard + limits.timeout) }
        return deadline
    }

    /// Takes every waiting connection; false when accept failed for another reason than "none left".
    private func accept(_ listener: Int32, into clients: inout [Int: Client], nextID: inout Int, now: Double) -> Bool {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd: Int32
            do {
                fd = try retryOnInterrupt {
                    withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) } }
                }
            } catch {
                return error == .wouldBlock || error.rawValue == ECONNABORTED
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if clients.count >= limits.clients {
                // The quietest connection that is neither waiting in idle nor on an answer makes room (MPD
                // would refuse the new one: then connections that say nothing could lock everyone out).
                let quiet = clients.filter { !$0.value.session.isIdle && !$0.value.session.executing }.min { $0.value.lastHeard < $1.value.lastHeard }
                guard let (victim, client) = quiet else {
                    close(fd) // every connection is a client at work: MPD's answer to one too many
                    continue
                }
                sendNow(MPDError(.unknown, "", "too many connections: the quietest is closed for a new one").line(at: 0), to: client.fd)
                close(client.fd)
                clients[victim] = nil
            }
            var client = Client(fd: fd, peer: Self.text(of: address), session: MPDSession(authorized: authorizedAtStart, listLimit: limits.commandListBytes),
                                lastHeard: now, lastTaken: now)
            client.output = Array(Self.greeting.utf8)
            _ = transmit(&client, now: now)
            clients[nextID] = client
            nextID += 1
        }
    }

    /// Reads what the client sent and hands over its complete lines. False: close it.
    private func receive(_ client: inout Client, id: Int, chunk: inout [UInt8], now: Double) -> Bool {
        // One byte past the limit is enough to know a line is too long: the rest is never read.
        let room = min(chunk.count, limits.lineBytes + 1 - client.input.count)
        guard room > 0 else { return true }
        let got: Int
        do { got = try retryOnInterrupt { chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, room, 0) } } } catch {
            return error == .wouldBlock
        }
        if got == 0 { return false }
        client.lastHeard = now
        client.input += chunk[0..<got]
        takeLines(&client, id: id, now: now)
        return true
    }

    /// Hands the session each complete line while it takes them (not while a batch runs).
    private func takeLines(_ client: inout Client, id: Int, now: Double) {
        while !client.session.executing, !client.closing {
            guard let newline = client.input.firstIndex(of: UInt8(ascii: "\n")) else {
                if client.input.count > limits.lineBytes {
                    client.input = []
                    apply([.write(MPDError(.argument, "", "line longer than \(limits.lineBytes) bytes; closing").line(at: 0)), .close],
                          to: &client, id: id, now: now)
                }
                break
            }
            let line = Array(client.input[..<newline])
            client.input.removeSubrange(...newline)
            if client.input.isEmpty { client.input = [] } // its buffer goes with it: an idle connection costs no 16 KiB
            apply(client.session.received(line), to: &client, id: id, now: now)
        }
    }

    private func apply(_ actions: [MPDSession.Action], to client: inout Client, id: Int, now: Double) {
        for action in actions {
            switch action {
            case .write(let text):
                if client.waiting == 0 { client.lastTaken = now }
                if client.outputSent > 0 {
                    client.output.removeFirst(client.outputSent)
                    client.outputSent = 0
                }
                client.output += Array(text.utf8)
                _ = transmit(&client, now: now)
            case .execute(let batch):
                let context = self.context(client.peer), completions = self.completions
                let state = client.session.state
                Task {
                    let outcome = await MPDCommands.run(batch, state: state, context: context)
                    completions.post(RemoteCompletion(client: id, outcome: outcome))
                }
            case .close:
                client.closing = true
                client.closeBy = now + 1 // what waits for it is written if it reads, not waited on
            }
        }
    }

    /// Writes what the socket takes. False: close the client.
    private func transmit(_ client: inout Client, now: Double) -> Bool {
        guard client.waiting > 0 else { return true }
        let sent: Int
        do {
            sent = try retryOnInterrupt {
                client.output.withUnsafeBytes { send(client.fd, $0.baseAddress! + client.outputSent, client.waiting, Int32(MSG_NOSIGNAL)) }
            }
        } catch {
            return error == .wouldBlock
        }
        client.outputSent += sent
        if sent > 0 { client.lastTaken = now }
        if client.waiting == 0 {
            client.output = []
            client.outputSent = 0
        }
        return true
    }

    /// One line to a client about to be closed, without waiting for it to read.
    private func sendNow(_ line: String, to fd: Int32) {
        _ = line.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// `192.168.1.20` or `fe80::1`: the peer as the password gate counts it (an IPv4 client of an IPv6
    /// socket as its IPv4 address).
    static func text(of address: sockaddr_storage) -> String {
        var copy = address
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(copy.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var raw = inet.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)).map { String(cString: $0) } ?? "?"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet in
                    var raw = inet.pointee.sin6_addr
                    let text = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)).map { String(cString: $0) } ?? "?"
                    return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
                }
            }
        default:
            return "?"
        }
    }
}
