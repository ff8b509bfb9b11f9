import CMosquitto
import Glibc
import PlayolaEngine

/// One libmosquitto client, the library's one wrapper. It is driven from one thread (`FleetLoop`'s): the
/// socket polled there, `read`/`write`/`housekeeping` called when it is ready, so libmosquitto starts no
/// thread of its own and its callbacks run on that thread, inside those calls. Not Sendable: it never leaves it.
final class MQTTClient {
    struct Credentials {
        var caFile: String?
        var caDirectory: String?
        var certFile: String?
        var keyFile: String?
        var user: String?
        var password: String?
    }

    /// What the loop calls brought: each read, write and housekeeping call may bring some (libmosquitto's
    /// callbacks, which run inside them), taken by `takeEvents`.
    enum Event {
        /// CONNACK's code: 0, accepted; else the broker's refusal (`refusal(_:)`).
        case connected(Int32)
        /// The connection ended: 0, asked for by `disconnect`.
        case disconnected(Int32)
        case message(FleetMessage)
    }

    private let handle: OpaquePointer
    private var events: [Event] = []
    /// libmosquitto's last error line (OpenSSL's "certificate verify failed"), said with the error it explains.
    private(set) var lastLibraryError: String?

    /// A client with `id` (the broker's client id: at most 23 bytes is all MQTT 3.1.1 promises, but mosquitto
    /// and the clusters take a UUID's 36), a clean session (no commands queued for a box while it was away:
    /// a `next` from an hour ago is not wanted), and its credentials; TLS when `secure`.
    init(id: String, secure: Bool, credentials: Credentials) throws(MQTTError) {
        if let failure = cmosquitto_load() { throw .library(String(cString: failure)) }
        guard let handle = cmosquitto_new(id, true, nil) else { throw .call("mosquitto_new", code: errno, reason: String(cString: strerror(errno))) }
        self.handle = handle
        do throws(MQTTError) {
            try check("MQTT v3.1.1", cmosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)))
            if credentials.user != nil {
                try check("mosquitto_username_pw_set", cmosquitto_username_pw_set(handle, credentials.user, credentials.password))
            }
            if secure {
                try check("TLS set-up", cmosquitto_tls_set(handle, credentials.caFile, credentials.caFile == nil ? credentials.caDirectory : nil,
                                                          credentials.certFile, credentials.keyFile))
            }
        } catch {
            cmosquitto_destroy(handle)
            throw error
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        cmosquitto_user_data_set(handle, context)
        // The context is this object, unretained: the handle it is set on dies in this object's deinit, and
        // the callbacks run only inside this object's own calls, on its thread.
        cmosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().events.append(.connected(code))
        }
        cmosquitto_disconnect_callback_set(handle) { _, context, code in
            guard let context else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().events.append(.disconnected(code))
        }
        cmosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message, let topic = message.pointee.topic else { return }
            // The broker bounds what it forwards; this bounds what is copied, whatever it forwards.
            let count = Int(min(max(0, message.pointee.payloadlen), Int32(FleetCommand.longestPayload + 1)))
            let payload = message.pointee.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            let client = Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue()
            client.events.append(.message(FleetMessage(topic: String(cString: topic), payload: payload,
                                                       length: Int(max(0, message.pointee.payloadlen)))))
        }
        cmosquitto_log_callback_set(handle) { _, context, level, text in
            guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().lastLibraryError = String(cString: text)
        }
    }

    deinit { cmosquitto_destroy(handle) }

    /// Sent by the broker for us when the connection drops without `disconnect` (a kill, a power cut, a
    /// network gone past the keep-alive). Set before `connect`.
    func setWill(topic: String, payload: String, retain: Bool) throws(MQTTError) {
        try check("mosquitto_will_set", Array(payload.utf8).withUnsafeBytes {
            cmosquitto_will_set(handle, topic, Int32($0.count), $0.baseAddress, 1, retain)
        })
    }

    /// Resolves, connects (TCP, then the TLS handshake) and queues CONNECT: blocks this thread while it does.
    /// CONNACK comes later, through `onConnect`.
    func connect(host: String, port: Int, keepalive: Int) throws(MQTTError) {
        try check("connect to \(host):\(port)", cmosquitto_connect(handle, host, Int32(port), Int32(keepalive)))
    }

    func disconnect() { _ = cmosquitto_disconnect(handle) }

    /// QoS 1: the broker has it once it is written and acknowledged, whatever the network does meanwhile.
    func publish(_ topic: String, _ payload: String, retain: Bool) throws(MQTTError) {
        try check("publish", Array(payload.utf8).withUnsafeBytes {
            cmosquitto_publish(handle, topic, Int32($0.count), $0.baseAddress, 1, retain)
        })
    }

    func subscribe(_ pattern: String) throws(MQTTError) {
        try check("subscribe", cmosquitto_subscribe(handle, pattern, 1))
    }

    /// The socket to poll, or -1 while there is none.
    var socket: Int32 { cmosquitto_socket(handle) }
    /// Whether it has bytes to write (POLLOUT worth asking for).
    var wantsToWrite: Bool { cmosquitto_want_write(handle) }

    func read() throws(MQTTError) { try check("read", cmosquitto_loop_read(handle)) }
    func write() throws(MQTTError) { try check("write", cmosquitto_loop_write(handle)) }
    /// Keep-alive pings and the check that the broker answers them: at least once a second.
    func housekeeping() throws(MQTTError) { try check("keep-alive", cmosquitto_loop_misc(handle)) }

    /// What happened since the last call.
    func takeEvents() -> [Event] {
        defer { events.removeAll() }
        return events
    }

    /// mosquitto_connack_string's text for a CONNACK code.
    static func refusal(_ code: Int32) -> String { cmosquitto_load() == nil ? String(cString: cmosquitto_connack_string(code)) : "code \(code)" }

    private func check(_ call: String, _ code: Int32) throws(MQTTError) {
        guard var error = MQTTError.of(call, code) else { return }
        if code == MOSQ_ERR_TLS.rawValue, let detail = lastLibraryError, case .call(let call, let code, let reason) = error {
            error = .call(call, code: code, reason: reason + " (" + detail + ")")
        }
        lastLibraryError = nil
        throw error
    }
}
