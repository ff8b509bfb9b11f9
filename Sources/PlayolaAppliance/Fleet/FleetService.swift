import PlayolaApplianceSupport
import PlayolaConfig
import PlayolaControl
import PlayolaEngine
import Synchronization

/// `[fleet]`: the box's status on an MQTT broker and commands from it, through a `FleetLoop` on a thread of
/// its own, or nothing at all without the section (no library loaded, no thread). A reload that changes the
/// section (or the stations Home Assistant is offered) stops the old loop and starts a new one.
package final class FleetService: Sendable {
    private let controller: ApplianceController
    private let deviceID: String
    private let current = Mutex<(settings: FleetSettings?, stations: [String], loop: FleetLoop?)>((nil, [], nil))
    /// Commands carried out now; more than `mostInFlight` at once are refused, so a flood from the broker
    /// cannot pile up tasks on the controller.
    private let inFlight = Atomic<Int>(0)
    static let mostInFlight = 8

    package init(controller: ApplianceController, deviceID: String) {
        self.controller = controller
        self.deviceID = deviceID
        // One listener for the life of the service, handing each change to whichever loop runs now.
        controller.changes.listen { [self] change in
            current.withLock { $0.loop }?.post(.status(change.line))
        }
    }

    /// Runs `settings` from now on (nothing when it is what runs already); nil: no fleet.
    package func apply(_ settings: FleetSettings?, stations: [String]) {
        let unchanged = current.withLock { $0.settings == settings && $0.stations == stations && ($0.loop != nil || settings == nil) }
        guard !unchanged else { return }
        let old = current.withLock { current in
            defer { current = (settings, stations, nil) }
            return current.loop
        }
        old?.stop()
        if old != nil { log(.info, "fleet: stopped") }
        guard let settings else { return }
        if let problem = FleetSettings.topicLevelProblem(deviceID) {
            return log(.error, "fleet: the device id '\(LogField.escaped(deviceID))' \(problem); the radio plays on without the fleet")
        }
        let topics = FleetTopics(prefix: settings.topicPrefix, device: deviceID, groups: settings.groups)
        // With discovery off, the configs a box published while it was on are removed, so a box turned off in
        // Home Assistant does not stay there as a device that never answers.
        let discovery = HomeAssistantDiscovery.configs(topics: topics, stations: stations).map { settings.haDiscovery ? $0 : $0.removal }
        do throws(ControlError) {
            let loop = try FleetLoop(settings: settings, topics: topics, discovery: discovery, state: controller.fleet) { [self] message in
                handle(message, topics: topics)
            }
            current.withLock { $0.loop = loop }
            startThread(named: "playola-fleet") { loop.run() }
            let controller = controller
            Task { loop.post(.firstStatus(ControlReply.line(await controller.status()))) }
            log(.info, "fleet: \(settings)")
        } catch {
            log(.error, "fleet: \(error); the radio plays on without it")
        }
    }

    /// The service stops: `lastStatus` (the stopped one) published, offline said, the connection closed (at
    /// most 2 s). The status is handed in because the change feed may not have said it yet.
    package func stop(lastStatus: String) {
        current.withLock { $0.loop }?.post(.status(lastStatus))
        apply(nil, stations: [])
    }

    /// A command from the broker (on the fleet's thread): refused at once, or carried out on the controller
    /// with its answer sent back when done.
    private func handle(_ message: FleetMessage, topics: FleetTopics) {
        let reply: @Sendable (Bool, String?) -> Void = { [self] ok, error in
            let line = FleetReply(ok: ok, payload: message.payload, topic: message.topic, error: error).line
            current.withLock { $0.loop }?.post(.reply(line))
        }
        let request: ControlRequest
        switch FleetCommand.parse(message.payload, length: message.length) {
        case .success(let parsed): request = parsed
        case .failure(let refusal):
            log(.warning, "fleet: refused a command on \(message.topic): \(refusal.reason)", key: "fleet-command")
            return reply(false, refusal.reason)
        }
        guard inFlight.add(1, ordering: .relaxed).newValue <= Self.mostInFlight else {
            inFlight.subtract(1, ordering: .relaxed)
            log(.warning, "fleet: refused a command on \(message.topic): \(Self.mostInFlight) are being carried out", key: "fleet-command")
            return reply(false, "busy: \(Self.mostInFlight) commands are being carried out; send it again")
        }
        let controller = controller
        Task { [self] in
            defer { inFlight.subtract(1, ordering: .relaxed) }
            do throws(ControlError) {
                _ = try await ControlCommands.perform(request, controller: controller)
                reply(true, nil)
            } catch {
                log(.warning, "fleet: \(FleetCommand.name(of: request)) from \(message.topic): \(error)", key: "fleet-command")
                reply(false, error.description)
            }
        }
    }
}
