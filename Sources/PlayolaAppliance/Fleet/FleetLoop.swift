import Glibc
import PlayolaApplianceSupport
import PlayolaConfig
import PlayolaControl
import PlayolaEngine

/// The fleet's one thread: connects to the broker (again and again, waiting longer each time it fails, up to
/// a minute), publishes what the service hands it, and hands the commands that come back to `onCommand`.
/// All of libmosquitto runs here, on a socket polled here: a broker that is down, slow or refusing holds up
/// this thread and nothing else.
final class FleetLoop: Sendable {
    private let settings: FleetSettings
    private let topics: FleetTopics
    private let discovery: [HomeAssistantDiscovery.Config]
    private let state: Reported<FleetStatus>
    private let onCommand: @Sendable (FleetMessage) -> Void
    private let inbox: Mailbox<FleetInput>
    private let stopped: Mailbox<Bool>

    /// Waits between attempts: 1 s, 2 s, 4 s … a minute, each with up to half of it taken off at random so
    /// a fleet that lost its broker at one moment does not come back at one moment.
    static let backoff = Backoff(first: 1, cap: 60)
    /// A connection the broker has not accepted (CONNACK) within this is given up.
    static let connackTimeout = 30.0
    /// The most a clean stop waits for the offline message and DISCONNECT to be written.
    static let stopFlush = 1.0

    init(settings: FleetSettings, topics: FleetTopics, discovery: [HomeAssistantDiscovery.Config], state: Reported<FleetStatus>,
         onCommand: @escaping @Sendable (FleetMessage) -> Void) throws(ControlError) {
        self.settings = settings
        self.topics = topics
        self.discovery = discovery
        self.state = state
        self.onCommand = onCommand
        inbox = try Mailbox()
        stopped = try Mailbox()
    }

    func post(_ input: FleetInput) { inbox.post(input) }

    /// Says offline, closes, and returns once done (or after 2 s: a connect attempt in progress, blocked on
    /// a broker that does not answer, is not waited for).
    func stop() {
        inbox.post(.stop)
        var entry = pollfd(fd: stopped.readEnd, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, 2000)
    }

    private var broker: String { settings.broker.description }

    func run() {
        var pacer = StatusPacer()
        var failures = 0
        var client: MQTTClient?
        state.set(FleetStatus(broker: broker, connected: false))
        while true {
            let problem: MQTTError
            do throws(MQTTError) {
                let connection: MQTTClient
                if let client { connection = client } else { connection = try makeClient() }
                client = connection
                // What the last connection's end left (its disconnect) is no news for this one.
                _ = connection.takeEvents()
                try connection.connect(host: settings.broker.host, port: settings.broker.port, keepalive: settings.keepalive)
                switch try session(connection, pacer: &pacer, failures: &failures) {
                case .stopped:
                    stopped.post(true)
                    return
                case .lost(let why):
                    problem = why
                }
            } catch {
                problem = error
            }
            failures += 1
            state.set(FleetStatus(broker: broker, connected: false, problem: problem.description))
            let wait = Self.backoff.delay(attempt: failures) * Double.random(in: 0.5...1)
            log(.warning, "fleet: cannot reach broker \(broker): \(problem); trying again in \(Int(wait.rounded(.up))) s", key: "fleet-link")
            if !waitOut(wait, pacer: &pacer) {
                stopped.post(true)
                return
            }
        }
    }

    private func makeClient() throws(MQTTError) -> MQTTClient {
        let client = try MQTTClient(id: topics.device, secure: settings.broker.secure, credentials: .init(
            caFile: settings.caFile, caDirectory: FleetSettings.systemCADirectory, certFile: settings.certFile, keyFile: settings.keyFile,
            user: settings.user, password: settings.password))
        try client.setWill(topic: topics.online, payload: "false", retain: true)
        return client
    }

    private enum SessionEnd {
        case stopped
        case lost(MQTTError)
    }

    /// One connection, from CONNECT sent to its end.
    private func session(_ client: MQTTClient, pacer: inout StatusPacer, failures: inout Int) throws(MQTTError) -> SessionEnd {
        var accepted = false
        let began = monotonicSeconds()
        while true {
            for event in client.takeEvents() {
                switch event {
                case .connected(0):
                    accepted = true
                    failures = 0
                    for pattern in topics.subscriptions { try client.subscribe(pattern) }
                    try client.publish(topics.online, "true", retain: true)
                    for config in discovery { try client.publish(config.topic, config.payload, retain: true) }
                    if let line = pacer.resend(now: monotonicSeconds()) { try client.publish(topics.status, line, retain: true) }
                    state.set(FleetStatus(broker: broker, connected: true))
                    log(.info, "fleet: connected to \(broker) as \(topics.device)")
                case .connected(let code):
                    return .lost(.refused(code: code, reason: MQTTClient.refusal(code)))
                case .disconnected(let code):
                    return .lost(.lost(code == 0 ? "closed" : "the broker closed it or stopped answering"))
                case .message(let message):
                    if accepted, topics.isCommand(message.topic) { onCommand(message) }
                }
            }
            if !accepted, monotonicSeconds() - began > Self.connackTimeout {
                return .lost(.lost("no answer to CONNECT in \(Int(Self.connackTimeout)) s"))
            }
            let now = monotonicSeconds()
            let timeout = pacer.due.map { max(0, min(1, $0 - now)) } ?? 1
            let socket = client.socket
            guard socket >= 0 else { return .lost(.lost("the socket closed")) }
            var fds = [pollfd(fd: inbox.readEnd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: socket, events: Int16(POLLIN) | (client.wantsToWrite ? Int16(POLLOUT) : 0), revents: 0)]
            _ = poll(&fds, 2, Int32(timeout * 1000) + 1)
            if fds[0].revents != 0 {
                for input in inbox.take() {
                    switch input {
                    case .status(let line):
                        if let line = pacer.offer(line, now: monotonicSeconds()), accepted { try client.publish(topics.status, line, retain: true) }
                    case .firstStatus(let line):
                        if pacer.latest == nil, let line = pacer.offer(line, now: monotonicSeconds()), accepted {
                            try client.publish(topics.status, line, retain: true)
                        }
                    case .reply(let line):
                        if accepted { try client.publish(topics.reply, line, retain: false) }
                    case .stop:
                        if accepted { closeCleanly(client, pacer: &pacer) }
                        state.set(nil)
                        return .stopped
                    }
                }
            }
            if fds[1].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { try client.read() }
            if fds[1].revents & Int16(POLLOUT) != 0 { try client.write() }
            try client.housekeeping()
            if accepted, let line = pacer.take(now: monotonicSeconds()) { try client.publish(topics.status, line, retain: true) }
        }
    }

    /// The held status, `online = false` and DISCONNECT, written before the socket closes (or `stopFlush`).
    private func closeCleanly(_ client: MQTTClient, pacer: inout StatusPacer) {
        if let line = pacer.take(now: .infinity) { try? client.publish(topics.status, line, retain: true) }
        try? client.publish(topics.online, "false", retain: true)
        let end = monotonicSeconds() + Self.stopFlush
        while client.wantsToWrite, client.socket >= 0, monotonicSeconds() < end {
            var entry = pollfd(fd: client.socket, events: Int16(POLLOUT), revents: 0)
            _ = poll(&entry, 1, 100)
            if (try? client.write()) == nil { return }
        }
        client.disconnect()
        while client.wantsToWrite, client.socket >= 0, monotonicSeconds() < end {
            if (try? client.write()) == nil { return }
            usleep(10_000)
        }
    }

    /// Waits `seconds` between attempts, keeping the newest status meanwhile; false when told to stop.
    private func waitOut(_ seconds: Double, pacer: inout StatusPacer) -> Bool {
        let end = monotonicSeconds() + seconds
        while true {
            let left = end - monotonicSeconds()
            if left <= 0 { return true }
            var entry = pollfd(fd: inbox.readEnd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(left * 1000) + 1) > 0 else { continue }
            for input in inbox.take() {
                switch input {
                case .status(let line): _ = pacer.offer(line, now: monotonicSeconds())
                case .firstStatus(let line): if pacer.latest == nil { _ = pacer.offer(line, now: monotonicSeconds()) }
                case .reply: break
                case .stop:
                    state.set(nil)
                    return false
                }
            }
        }
    }
}
