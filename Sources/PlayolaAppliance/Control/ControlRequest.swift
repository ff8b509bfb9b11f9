import FoundationEssentials
import PlayolaApplianceSupport
import PlayolaEngine

/// What a client asks the service: one line on the control socket. The client sends this type as JSON
/// (`{"play":{"station":"porch"}}`); the service also takes the words a person types into the socket
/// (`play porch --ago 1h`, with socat), read by the same type — one definition of the commands for both
/// sides. The answer is a `ControlReply` (a `StatusReport` for `status`).
package enum ControlRequest: Codable, Sendable, Equatable {
    case status
    /// `ago`: as typed (`1h`); the service checks it, so a bad one is its refusal, with the range in it.
    case play(station: String?, ago: String?)
    case next, previous, stop, pause, resume
    case volume(percent: Int)
    /// Tone controls in dB; the service checks the range.
    case bass(dB: Double), treble(dB: Double)
    /// From the udev rule: a sound card came or went.
    case audioDevice
    /// The configured stations, in file order (MPD's stored playlists).
    case stations
    /// Keeps the connection: the status now, then one line at each change (`ChangeFeed`), until it closes.
    case subscribe

    package static let list = "status, play [STATION] [--ago DURATION], next, previous, stop, pause, resume, volume N, bass DB, treble DB, stations, subscribe"

    /// The words of a command line (`play porch --ago 1h`); throws a usage message naming the problem,
    /// a word the command does not take included.
    package init(words: [String]) throws(ControlError) {
        let name = words.first ?? ""
        let rest = Array(words.dropFirst())
        switch name {
        case "status": self = try Self.alone(.status, words)
        case "next": self = try Self.alone(.next, words)
        case "previous": self = try Self.alone(.previous, words)
        case "stop": self = try Self.alone(.stop, words)
        case "pause": self = try Self.alone(.pause, words)
        case "resume": self = try Self.alone(.resume, words)
        case "stations": self = try Self.alone(.stations, words)
        case "subscribe": self = try Self.alone(.subscribe, words)
        case "play":
            var station: String?
            var ago: String?
            var index = 0
            while index < rest.count {
                if rest[index] == "--ago" {
                    guard index + 1 < rest.count else { throw .usage("--ago needs a duration, like 1h") }
                    ago = rest[index + 1]
                    index += 2
                } else {
                    guard station == nil else { throw .usage("play takes one station, not '\(LogField.escaped(rest[index]))' too") }
                    station = rest[index]
                    index += 1
                }
            }
            self = .play(station: station, ago: ago)
        // udev's rule adds the action (add, remove): whichever it is, the device is looked for again.
        case "audio-device":
            guard rest.count <= 1 else { throw .usage("audio-device takes at most the udev action, not '\(LogField.escaped(rest[1]))'") }
            self = .audioDevice
        case "volume":
            guard rest.count == 1, let percent = Int(rest[0]) else { throw .usage("volume takes a percentage from 0 to 100") }
            self = .volume(percent: percent)
        case "bass", "treble":
            guard rest.count == 1, let dB = Double(rest[0]), dB.isFinite else {
                throw .usage("\(name) takes a gain in dB from \(Int(ToneControl.range.lowerBound)) to \(Int(ToneControl.range.upperBound))")
            }
            self = name == "bass" ? .bass(dB: dB) : .treble(dB: dB)
        default:
            throw .usage("unknown command '\(LogField.escaped(name))'; commands: \(Self.list)")
        }
    }

    /// A command that takes no words after its name.
    private static func alone(_ request: ControlRequest, _ words: [String]) throws(ControlError) -> ControlRequest {
        guard words.count == 1 else { throw .usage("\(words[0]) takes no arguments, not '\(LogField.escaped(words[1]))'") }
        return request
    }

    /// A request line as it arrives: JSON from `playola`'s clients, else words.
    package init(line: String) throws(ControlError) {
        guard line.hasPrefix("{") else {
            try self.init(words: line.split(separator: " ").map(String.init))
            return
        }
        guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) else {
            throw .usage("not a request: \(LogField.escaped(String(line.prefix(200))))")
        }
        self = request
    }

    /// The line the client sends.
    package var line: String { ControlReply.line(self) }

    /// Commands that start a station: the station failing to start is their failure too.
    package var startsAStation: Bool {
        switch self {
        case .play, .next, .previous, .resume: true
        default: false
        }
    }
}
