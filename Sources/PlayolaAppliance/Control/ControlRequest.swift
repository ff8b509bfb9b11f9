import FoundationEssentials
import PlayolaEngine

/// What a client asks the service: one line on the control socket. The client sends this type as JSON
/// (`{"play":{"station":"porch"}}`); the service also takes the words a person types into the socket
/// (`play porch --ago 1h`, with socat), read by the same type — one definition of the commands for both
/// sides. The answer is a `ControlReply` (a `StatusReport` for `status`).
enum ControlRequest: Codable, Sendable, Equatable {
    case status
    /// `ago`: as typed (`1h`); the service checks it, so a bad one is its refusal, with the range in it.
    case play(station: String?, ago: String?)
    case next, previous, stop, pause, resume
    case volume(percent: Int)
    /// Tone controls in dB; the service checks the range.
    case bass(dB: Double), treble(dB: Double)
    /// From the udev rule: a sound card came or went.
    case audioDevice

    static let list = "status, play [STATION] [--ago DURATION], next, previous, stop, pause, resume, volume N, bass DB, treble DB"

    /// The words of a command line (`play porch --ago 1h`); throws a usage message naming the problem.
    init(words: [String]) throws(ControlError) {
        switch words.first {
        case "status": self = .status
        case "play":
            var station: String?
            var ago: String?
            var index = 1
            while index < words.count {
                if words[index] == "--ago", index + 1 < words.count {
                    ago = words[index + 1]
                    index += 2
                } else {
                    station = words[index]
                    index += 1
                }
            }
            self = .play(station: station, ago: ago)
        case "next": self = .next
        case "previous": self = .previous
        case "stop": self = .stop
        case "pause": self = .pause
        case "resume": self = .resume
        // udev's rule adds the action (add, remove): whichever it is, the device is looked for again.
        case "audio-device": self = .audioDevice
        case "volume":
            guard words.count == 2, let percent = Int(words[1]) else { throw .usage("volume takes a percentage from 0 to 100") }
            self = .volume(percent: percent)
        case "bass", "treble":
            guard words.count == 2, let dB = Double(words[1]), dB.isFinite else {
                throw .usage("\(words[0]) takes a gain in dB from \(Int(ToneControl.range.lowerBound)) to \(Int(ToneControl.range.upperBound))")
            }
            self = words[0] == "bass" ? .bass(dB: dB) : .treble(dB: dB)
        default:
            throw .usage("unknown command '\(LogField.escaped(words.first ?? ""))'; commands: \(Self.list)")
        }
    }

    /// A request line as it arrives: JSON from `playola`'s clients, else words.
    init(line: String) throws(ControlError) {
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
    var line: String { ControlReply.line(self) }

    /// Commands that start a station: the station failing to start is their failure too.
    var startsAStation: Bool {
        switch self {
        case .play, .next, .previous, .resume: true
        default: false
        }
    }
}
