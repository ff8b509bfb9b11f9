import PlayolaEngine

/// What each control command does: one request line → one answer line.
enum ControlCommands {
    static let list = "status, play [STATION] [--ago DURATION], next, previous, stop, pause, resume, volume N"

    /// One command → its JSON answer (always an object with a boolean `ok`).
    static func handle(_ line: String, controller: ApplianceController) async -> String {
        let words = line.split(separator: " ").map(String.init)
        do throws(ControlError) {
            switch words.first {
            case "status":
                return ControlReply.line(await controller.status())
            case "play":
                var name: String?
                var ago: Double?
                var index = 1
                while index < words.count {
                    if words[index] == "--ago", index + 1 < words.count {
                        ago = try agoSeconds(words[index + 1])
                        index += 2
                    } else {
                        name = words[index]
                        index += 1
                    }
                }
                try await controller.play(name, ago: ago)
            case "next": await controller.next()
            case "previous": await controller.previous()
            case "stop": await controller.stop()
            case "pause": await controller.pause()
            case "resume": await controller.resume()
            case "audio-device":
                // From the udev rule: a sound card was added or removed; look for the device now.
                await controller.audioDeviceChanged()
            case "volume":
                guard words.count == 2, let percent = Int(words[1]), (0...100).contains(percent) else {
                    throw .usage("volume takes a percentage from 0 to 100")
                }
                await controller.setVolume(percent)
            default:
                throw .usage("unknown command '\(LogField.escaped(words.first ?? ""))'; commands: \(list)")
            }
            return ControlReply.line(ControlReply.success)
        } catch {
            return ControlReply.line(ControlReply.failure(error.description))
        }
    }

    /// `--ago`: a duration within what a timeshift may be, so the date it makes stays a real date.
    static func agoSeconds(_ text: String) throws(ControlError) -> Double {
        guard let seconds = parseDuration(text), seconds <= ApplianceConfig.maximumTimeshift else {
            throw .usage("--ago: a duration like 1h, 15m or 90s, at most \(DurationText.describe(ApplianceConfig.maximumTimeshift)), not '\(LogField.escaped(text))'")
        }
        return seconds
    }
}
