import Foundation
import Synchronization
import XCTest
import PlayolaTestSupport

/// A real mosquitto on a free port of 127.0.0.1 for the fleet tests: TLS only, a client certificate required
/// and its CN the client's user name (`use_identity_as_username`), and an ACL by which a box (CN = its device
/// id) may write only under `playola/<its id>/` (and its Home Assistant configs) and read only its own `cmd`
/// and the groups'. `operator` (the fleet's owner) may do everything under `playola/`. The CA, the broker's
/// certificate and every client's are made by openssl in `folder`, removed with it.
final class FleetBroker {
    let folder: String
    private(set) var port = 0
    private var process: Process?

    init() throws {
        folder = NSTemporaryDirectory() + "playola-fleet-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder + "/clients", withIntermediateDirectories: true)
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                     "-subj", "/CN=Playola test CA", "-keyout", "\(folder)/ca.key", "-out", caFile])
        try certificate(name: "broker", into: folder + "/broker", san: "IP:127.0.0.1")
        try certificate(name: "operator")
        try """
        user operator
        topic readwrite playola/#
        topic read homeassistant/#

        pattern write playola/%u/#
        pattern read playola/%u/cmd
        pattern read playola/group/+/cmd
        pattern write homeassistant/+/%u/+/config
        """.write(toFile: folder + "/acl", atomically: true, encoding: .utf8)
    }

    var caFile: String { folder + "/ca.crt" }
    var url: String { "mqtts://127.0.0.1:\(port)" }

    /// A client's certificate and key, its CN `name` (a device id makes a box's): `clients/NAME.crt`, `.key`.
    @discardableResult
    func certificate(name: String, into base: String? = nil, san: String? = nil) throws -> (cert: String, key: String) {
        let base = base ?? "\(folder)/clients/\(name)"
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-subj", "/CN=\(name)", "-keyout", base + ".key", "-out", base + ".csr"])
        var signing = ["x509", "-req", "-in", base + ".csr", "-CA", caFile, "-CAkey", "\(folder)/ca.key", "-CAcreateserial",
                       "-days", "2", "-out", base + ".crt"]
        if let san {
            try "subjectAltName=\(san)\n".write(toFile: base + ".ext", atomically: true, encoding: .utf8)
            signing += ["-extfile", base + ".ext"]
        }
        try openssl(signing)
        return (base + ".crt", base + ".key")
    }

    func client(_ name: String) -> (cert: String, key: String) { ("\(folder)/clients/\(name).crt", "\(folder)/clients/\(name).key") }

    /// A port for it now, without starting it: a broker that is down.
    func reservePort() throws { if port == 0 { port = try RemoteService.freePort() } }

    /// Starts mosquitto (on a new free port the first time, the same one after `kill`), and waits until it listens.
    func start() throws {
        if port == 0 { port = try RemoteService.freePort() }
        // As the user running the tests: mosquitto started as root would drop to `mosquitto`, which cannot
        // read the keys in our folder.
        let user = String(cString: getpwuid(geteuid()).pointee.pw_name)
        try """
        user \(user)
        per_listener_settings false
        persistence false
        log_dest file \(folder)/mosquitto.log
        log_type error
        log_type warning
        log_type notice
        max_keepalive 600
        listener \(port) 127.0.0.1
        cafile \(caFile)
        certfile \(folder)/broker.crt
        keyfile \(folder)/broker.key
        require_certificate true
        use_identity_as_username true
        acl_file \(folder)/acl
        """.write(toFile: folder + "/mosquitto.conf", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", folder + "/mosquitto.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while !RemoteService.connects(port) {
            guard Date() < deadline, process.isRunning else { throw NSError(domain: "mosquitto did not listen on \(port)", code: 1) }
            usleep(20_000)
        }
    }

    /// SIGKILL: no will it could send for itself, the clients' connections reset.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `mosquitto_pub` as `name` (a client certificate made before): its exit status.
    @discardableResult
    func publish(as name: String, topic: String, _ message: String) throws -> Int32 {
        let (cert, key) = client(name)
        let run = try PlayolaRun(["-h", "127.0.0.1", "-p", "\(port)", "--cafile", caFile, "--cert", cert, "--key", key, "-q", "1",
                                  "-t", topic, "-m", message], tool: "/usr/bin/mosquitto_pub")
        return run.status
    }

    /// The retained messages on `pattern` now, by topic: a new subscription as `operator`, ended after `count`
    /// of them (nil: any number) or `wait` seconds. Ended from here: mosquitto_sub's own `-W` is an alarm, and a
    /// child of the test process inherits the signals its thread blocks, SIGALRM among them.
    func retained(_ pattern: String, expecting count: Int? = nil, wait: Double = 5) throws -> [String: String] {
        let (cert, key) = client("operator")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = ["-h", "127.0.0.1", "-p", "\(port)", "--cafile", caFile, "--cert", cert, "--key", key, "-v",
                             "--retained-only", "-t", pattern] + (count.map { ["-C", "\($0)"] } ?? [])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read while it runs: fifty statuses are more than a pipe holds.
        let said = Mutex(Data()), read = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            said.withLock { $0 = data }
            read.signal()
        }
        let deadline = Date().addingTimeInterval(wait)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        // SIGKILL: the child inherits the test thread's blocked signals, SIGTERM among them.
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        read.wait()
        process.waitUntilExit()
        return FleetMonitor.parse(String(decoding: said.withLock { $0 }, as: UTF8.self))
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func openssl(_ arguments: [String]) throws {
        let run = try PlayolaRun(arguments, tool: "/usr/bin/openssl")
        guard run.status == 0 else { throw NSError(domain: "openssl \(arguments.first ?? ""): \(run.error)", code: Int(run.status)) }
    }
}

/// A `mosquitto_sub` as `operator` on `playola/#`: every message with the time it came, so a test can ask
/// when a box's status or online flag changed. mosquitto_sub ends when its broker goes: `restart` starts
/// another after the broker's restart (the retained messages it then gets are dated at its subscription: a
/// time no earlier than the box's own).
final class FleetMonitor: @unchecked Sendable {
    // @unchecked: `messagesSeen`, `pending` and `process` are only touched under `lock` (the pipe's reader
    // thread appends, the test reads and restarts).
    struct Message {
        var topic: String
        var payload: String
        var at: Date
    }

    private let arguments: [String]
    private var process = Process()
    private let lock = NSLock()
    private var messagesSeen: [Message] = []
    private var pending = Data()

    init(broker: FleetBroker, pattern: String = "playola/#") throws {
        let (cert, key) = broker.client("operator")
        arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "--cafile", broker.caFile, "--cert", cert, "--key", key,
                     "-v", "-q", "1", "-t", pattern]
        try restart()
    }

    /// A new mosquitto_sub (the last one stopped).
    func restart() throws {
        stop()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            guard let data = handle.readAvailable() else { return handle.readabilityHandler = nil }
            self?.take(data)
        }
        try process.run()
        lock.lock()
        self.process = process
        pending = Data()
        lock.unlock()
    }

    private func take(_ data: Data) {
        let now = Date()
        lock.lock()
        defer { lock.unlock() }
        pending += data
        while let newline = pending.firstIndex(of: 10) {
            let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending = Data(pending[(newline + 1)...])
            if let (topic, payload) = Self.split(line) { messagesSeen.append(Message(topic: topic, payload: payload, at: now)) }
        }
    }

    var messages: [Message] {
        lock.lock()
        defer { lock.unlock() }
        return messagesSeen
    }

    /// The newest payload on `topic` that came at or after `since`.
    func latest(_ topic: String, since: Date = .distantPast) -> Message? {
        messages.last { $0.topic == topic && $0.at >= since }
    }

    /// The first message on `topic` at or after `since` that `matches`.
    func first(_ topic: String, since: Date = .distantPast, where matches: (String) -> Bool = { _ in true }) -> Message? {
        messages.first { $0.topic == topic && $0.at >= since && matches($0.payload) }
    }

    func stop() {
        lock.lock()
        let process = self.process
        lock.unlock()
        guard process.isRunning else { return }
        // SIGKILL: it inherits the test process's blocked signals, SIGTERM among them.
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    static func split(_ line: String) -> (String, String)? {
        guard let space = line.firstIndex(of: " ") else { return nil }
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }

    static func parse(_ out: String) -> [String: String] {
        var found: [String: String] = [:]
        for line in out.split(separator: "\n") {
            if let (topic, payload) = split(String(line)) { found[topic] = payload }
        }
        return found
    }

    static func json(_ payload: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any] ?? [:]
    }
}
