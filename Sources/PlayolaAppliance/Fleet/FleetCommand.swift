import PlayolaControl
import PlayolaApplianceSupport
import PlayolaEngine

/// A command from the broker: a control socket request (`{"next":{}}`, `next`, `volume 40`), of which only
/// what steers the playing is taken. Status, subscribe, stations, the tone and the udev rule's request are
/// refused: the status is published already, and the rest are the box's own business.
package enum FleetCommand {
    /// A request is one control line; more is no command of ours (and costs the decoder nothing to refuse).
    package static let longestPayload = 1024

    /// The request, or the refusal to send back. `length`: the payload's as it came (`payload` may be cut).
    package static func parse(_ payload: [UInt8], length: Int? = nil) -> Result<ControlRequest, FleetRefusal> {
        let length = length ?? payload.count
        guard length <= longestPayload, payload.count <= longestPayload else {
            return .failure(FleetRefusal("the command is \(length) bytes; at most \(longestPayload)"))
        }
        guard let text = String(validating: payload, as: UTF8.self) else { return .failure(FleetRefusal("the command is not UTF-8 text")) }
        let line = text.trimmingWhitespace()
        guard !line.isEmpty else { return .failure(FleetRefusal("the command is empty")) }
        // JSON may be spread over lines (its decoder refuses a control character inside a string); words may not.
        if !line.hasPrefix("{"), ControlCharacters.first(in: line) != nil {
            return .failure(FleetRefusal("the command holds a control character"))
        }
        let request: ControlRequest
        do throws(ControlError) {
            request = try ControlRequest(line: line)
        } catch {
            return .failure(FleetRefusal(error.description))
        }
        guard isAllowed(request) else {
            return .failure(FleetRefusal("'\(name(of: request))' is not a fleet command; fleet commands: \(allowed)"))
        }
        return .success(request)
    }

    package static let allowed = "play [STATION], stop, next, previous, pause, resume, volume N"

    /// play, stop, next, previous, pause, resume, volume; `play --ago` too (a Playola station's past, which
    /// the controller checks as it would from the socket).
    static func isAllowed(_ request: ControlRequest) -> Bool {
        switch request {
        case .play, .stop, .next, .previous, .pause, .resume, .volume: true
        case .status, .subscribe, .stations, .bass, .treble, .audioDevice: false
        }
    }

    /// The request's name, as its line starts (`next`, `audio-device`).
    package static func name(of request: ControlRequest) -> String {
        switch request {
        case .status: "status"
        case .play: "play"
        case .next: "next"
        case .previous: "previous"
        case .stop: "stop"
        case .pause: "pause"
        case .resume: "resume"
        case .volume: "volume"
        case .bass: "bass"
        case .treble: "treble"
        case .audioDevice: "audio-device"
        case .stations: "stations"
        case .subscribe: "subscribe"
        }
    }
}

/// Why a command was not carried out: the reply's `error`.
package struct FleetRefusal: Error, Equatable, Sendable {
    package var reason: String
    package init(_ reason: String) { self.reason = reason }
}

/// What the box answers on `PREFIX/DEVICE/reply`: `ok`, what was asked (cut, as it came), and why not.
package struct FleetReply: Codable, Sendable, Equatable {
    package var ok: Bool
    /// The command's text, at most `shownPayload` characters: lets a sender tell its answers apart.
    package var command: String
    /// The topic it came on: the box's own, or a group's.
    package var topic: String
    package var error: String?

    package static let shownPayload = 200

    package init(ok: Bool, payload: [UInt8], topic: String, error: String? = nil) {
        self.ok = ok
        let text = String(decoding: payload.prefix(Self.shownPayload * 4), as: UTF8.self)
        command = LogField.escaped(String(text.prefix(Self.shownPayload)))
        self.topic = topic
        self.error = error
    }

    package var line: String { ControlReply.line(self) }
}
