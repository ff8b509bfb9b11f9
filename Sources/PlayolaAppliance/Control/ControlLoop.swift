import Glibc
import PlayolaEngine

/// Serves the control socket's clients concurrently from one thread with poll(2): every client is a
/// non-blocking socket with a deadline, so an idle client, one that never sends a newline, or one that
/// writes and never reads costs a slot and a small buffer until its deadline, never anyone else's time.
/// Slots are shared out by user (`ControlSlots`), and no connection outlives `Limits.lifetime`, so a
/// client that keeps sending requests cannot hold its slot either.
///
/// A client's request is handed to `handler` as a task; its answer comes back through a `Mailbox` and its
/// wake pipe, and the loop writes it. One request per client is in flight at a time, so a client's commands
/// run in the order it sent them.
///
/// A client that sends `subscribe` keeps its connection: after the status, each change the `ChangeFeed`
/// publishes is one more line, for as long as it reads them (it is closed once `subscriberBacklog` bytes wait
/// for it, or none of them was taken for `deadline`), beyond `lifetime` but still within its user's slots.
package final class ControlLoop: Sendable {
    package struct Limits: Sendable {
        /// Clients connected at once; a connection beyond this is answered with an error line and closed.
        package var clients = 256
        /// Of those, what one user other than root and the service's may hold.
        package var perUser = 64
        /// Of those, what only root and the service's user may take.
        package var reserved = 32
        /// Seconds a connection is served at most, however busy: a client's whole exchange takes less than
        /// its own 5 s timeout.
        package var lifetime = 10.0
        /// Bytes in one request line.
        package var requestBytes = 4096
        /// Seconds a client has to send a whole request line, and to take its whole answer (a subscriber: to
        /// take any of what waits for it).
        package var deadline = 2.0
        /// Bytes of change lines waiting for a subscriber that does not read: some 30 status lines.
        package var subscriberBacklog = 64 << 10
    }

    package let limits: Limits
    private let slots: ControlSlots
    private let listening: Int32
    private let handler: @Sendable (String) async -> String
    private let completions: Mailbox<Completion>
    /// The change lines for subscribers, from the feed.
    private let changes: Mailbox<String>

    package init(listening: Int32, limits: Limits, feed: ChangeFeed?, handler: @escaping @Sendable (String) async -> String) throws(ControlError) {
        completions = try Mailbox()
        changes = try Mailbox()
        self.listening = listening
        self.limits = limits
        slots = ControlSlots(total: limits.clients, perUser: limits.perUser, reserved: limits.reserved)
        self.handler = handler
        feed?.listen { [changes] change in changes.post(change.line) }
    }

    /// One connected client.
    private struct Client {
        /// `streaming`: a subscriber that has its first answer, taking change lines as they come.
        package enum Phase { case reading, handling, writing, streaming }
        package let fd: Int32
        /// Its peer's uid; a peer the kernel does not name shares one unprivileged count (uid_t.max).
        package let user: uid_t
        /// Monotonic seconds at which it is closed whatever it is doing (never, once it subscribed).
        package var closesAt: Double
        /// It asked to `subscribe`: change lines are queued for it from then on.
        package var subscribed = false
        package var phase = Phase.reading
        package var input: [UInt8] = []
        package var output: [UInt8] = []
        package var outputSent = 0
        package var closeAfterWrite = false
        /// Monotonic seconds by which the current read or write must be done (none while handling).
        package var deadline: Double
    }

    package func run() {
        var clients: [Int: Client] = [:]
        var nextID = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        /// While accept fails for want of descriptors, the listening socket stays readable: it is left out of
        /// the poll until then rather than spinning on it.
        var acceptPausedUntil = 0.0
        while true {
            var ids: [Int] = []
            let accepting = monotonicSeconds() >= acceptPausedUntil
            var fds = [pollfd(fd: listening, events: accepting ? Int16(POLLIN) : 0, revents: 0),
                       pollfd(fd: completions.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: changes.readEnd, events: Int16(POLLIN), revents: 0)]
            var earliest = accepting ? Double.infinity : acceptPausedUntil
            for (id, client) in clients {
                let events: Int32 = switch client.phase {
                case .reading: POLLIN
                case .writing: POLLOUT
                case .handling: 0
                // POLLIN for the hang-up: a subscriber sends nothing more.
                case .streaming: client.output.count > client.outputSent ? POLLIN | POLLOUT : POLLIN
                }
                ids.append(id)
                fds.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
                earliest = min(earliest, client.phase == .handling ? client.closesAt : min(client.deadline, client.closesAt))
            }
            let wait = earliest.isFinite ? Int32(max(0, min(60, earliest - monotonicSeconds())) * 1000) + 1 : -1
            // Not retryOnInterrupt: after a signal the loop goes round and waits for the deadlines as they are now.
            if poll(&fds, nfds_t(fds.count), wait) < 0 && Errno.current != .interrupted {
                usleep(100_000) // cannot happen with valid descriptors; never spin if it does
                continue
            }
            let now = monotonicSeconds()
            if fds[1].revents != 0 {
                for completion in completions.take() {
                    guard var client = clients[completion.client] else { continue }
                    // A subscriber's change lines queued while its first answer was made go after it.
                    client.output = Array((completion.answer + "\n").utf8) + client.output
                    client.outputSent = 0
                    client.phase = .writing
                    client.deadline = now + limits.deadline
                    clients[completion.client] = client
                }
            }
            if fds[2].revents != 0 {
                let lines = changes.take()
                for (id, client) in clients where client.subscribed {
                    var client = client
                    for line in lines { queue(line, for: &client, now: now) }
                    clients[id] = client
                }
            }
            for (offset, id) in ids.enumerated() {
                guard var client = clients[id] else { continue }
                let revents = Int32(fds[offset + 3].revents)
                var open = true
                if client.phase == .reading, revents & (POLLIN | POLLHUP | POLLERR) != 0 {
                    open = receive(&client, id: id, chunk: &chunk, now: now)
                } else if client.phase == .writing, revents & (POLLOUT | POLLHUP | POLLERR) != 0 {
                    open = transmit(&client, id: id, now: now)
                } else if client.phase == .streaming {
                    open = stream(&client, revents: revents, chunk: &chunk, now: now)
                }
                if client.subscribed, client.output.count - client.outputSent > limits.subscriberBacklog { open = false }
                if open, client.phase != .handling, now >= client.deadline {
                    // Best effort: a client that is merely slow learns why; one that does not read loses nothing.
                    if client.phase == .reading { sendNow(ControlReply.failure("no complete request within \(limits.deadline) s"), to: client.fd) }
                    open = false
                }
                if open, now >= client.closesAt {
                    if client.phase == .reading { sendNow(ControlReply.failure("a connection is served for \(limits.lifetime) s at most; connect again"), to: client.fd) }
                    open = false
                }
                if open { clients[id] = client } else { close(client.fd); clients[id] = nil }
            }
            if fds[0].revents != 0, !accept(into: &clients, nextID: &nextID, now: now) {
                acceptPausedUntil = now + 0.1
            }
        }
    }

    /// Takes every waiting connection; false when accept failed for another reason than "none left" (out of
    /// descriptors: EMFILE, ENFILE, ENOBUFS).
    private func accept(into clients: inout [Int: Client], nextID: inout Int, now: Double) -> Bool {
        while true {
            let fd: Int32
            do { fd = try retryOnInterrupt { Glibc.accept(listening, nil, nil) } } catch {
                return error == .wouldBlock || error.rawValue == ECONNABORTED
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let user = ControlSlots.peerUser(fd) ?? uid_t.max
            if let refusal = slots.refusal(of: user, held: clients.values.lazy.map(\.user)) {
                sendNow(ControlReply.failure(refusal), to: fd)
                close(fd)
                continue
            }
            clients[nextID] = Client(fd: fd, user: user, closesAt: now + limits.lifetime, deadline: now + limits.deadline)
            nextID += 1
        }
    }

    /// Reads what the client sent; starts its first complete request. False: close the client.
    private func receive(_ client: inout Client, id: Int, chunk: inout [UInt8], now: Double) -> Bool {
        let room = min(chunk.count, limits.requestBytes - client.input.count)
        if room > 0 {
            let got: Int
            do { got = try retryOnInterrupt { chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, room, 0) } } } catch {
                return error == .wouldBlock
            }
            if got == 0 { return false } // the client has said all it will, and a partial line is no command
            client.input += chunk[0..<got]
        }
        return startRequest(&client, id: id, now: now)
    }

    /// Hands the next complete line to the handler, or answers a line that is too long.
    private func startRequest(_ client: inout Client, id: Int, now: Double) -> Bool {
        guard let newline = client.input.firstIndex(of: UInt8(ascii: "\n")) else {
            if client.input.count >= limits.requestBytes {
                client.output = Array((ControlReply.line(ControlReply.failure("request longer than \(limits.requestBytes) bytes")) + "\n").utf8)
                client.outputSent = 0
                client.phase = .writing
                client.closeAfterWrite = true
                client.deadline = now + limits.deadline
            }
            return true
        }
        let line = String(decoding: client.input[..<newline], as: UTF8.self)
        client.input.removeSubrange(...newline)
        client.phase = .handling
        if (try? ControlRequest(line: line)) == .subscribe {
            client.subscribed = true
            client.closesAt = .infinity
        }
        let handler = self.handler
        let completions = self.completions
        Task {
            let answer = await handler(line)
            completions.post(Completion(client: id, answer: answer))
        }
        return true
    }

    /// Writes what the socket takes of the answer; once it is all out, the client may send its next line.
    private func transmit(_ client: inout Client, id: Int, now: Double) -> Bool {
        let remaining = client.output.count - client.outputSent
        let sent: Int
        do { sent = try retryOnInterrupt { client.output.withUnsafeBytes { send(client.fd, $0.baseAddress! + client.outputSent, remaining, Int32(MSG_NOSIGNAL)) } } } catch {
            return error == .wouldBlock
        }
        client.outputSent += sent
        guard client.outputSent == client.output.count else { return true }
        if client.closeAfterWrite { return false }
        client.output = []
        client.outputSent = 0
        if client.subscribed {
            client.phase = .streaming
            client.deadline = .infinity
            return true
        }
        client.phase = .reading
        client.deadline = now + limits.deadline
        return startRequest(&client, id: id, now: now)
    }

    /// A change line for a subscriber: written at once when it is streaming, after its answer otherwise.
    private func queue(_ line: String, for client: inout Client, now: Double) {
        if client.outputSent > 0 {
            client.output.removeFirst(client.outputSent)
            client.outputSent = 0
        }
        // It has `deadline` seconds to take some of it, from the moment something waits for it.
        if client.phase == .streaming, client.output.isEmpty { client.deadline = now + limits.deadline }
        client.output += Array((line + "\n").utf8)
    }

    /// A subscriber: what waits for it written, anything it sends dropped, its hang-up seen. False: close it.
    private func stream(_ client: inout Client, revents: Int32, chunk: inout [UInt8], now: Double) -> Bool {
        if revents & POLLIN != 0 {
            let got = (try? retryOnInterrupt { chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) } }) ?? -1
            if got == 0 { return false }
        }
        if revents & (POLLHUP | POLLERR) != 0 { return false }
        guard revents & POLLOUT != 0, client.output.count > client.outputSent else { return true }
        let remaining = client.output.count - client.outputSent
        let sent: Int
        do { sent = try retryOnInterrupt { client.output.withUnsafeBytes { send(client.fd, $0.baseAddress! + client.outputSent, remaining, Int32(MSG_NOSIGNAL)) } } } catch {
            return error == .wouldBlock
        }
        client.outputSent += sent
        client.deadline = client.outputSent == client.output.count ? .infinity : now + limits.deadline
        return true
    }

    /// One line to a client that is about to be closed, without waiting for it to read.
    private func sendNow(_ reply: ControlReply, to fd: Int32) {
        let line = ControlReply.line(reply) + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }
}
