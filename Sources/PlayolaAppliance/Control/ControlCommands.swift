import PlayolaEngine
import PlayolaConfig
import PlayolaApplianceSupport

/// What each control request does: one request line → one answer line.
enum ControlCommands {
    /// One request line → its JSON answer (always an object with a boolean `ok`).
    static func handle(_ line: String, controller: ApplianceController) async -> String {
        do throws(ControlError) {
            switch try ControlRequest(line: line) {
            case .status:
                return ControlReply.line(await controller.status())
            case .play(let station, let ago):
                try await controller.play(station, ago: try ago.map { text throws(ControlError) in try agoSeconds(text) })
            case .next: await controller.next()
            case .previous: await controller.previous()
            case .stop: await controller.stop()
            case .pause: await controller.pause()
            case .resume: await controller.resume()
            case .audioDevice:
                // From the udev rule: a sound card was added or removed; look for the device now.
                await controller.audioDeviceChanged()
            case .volume(let percent):
                guard (0...100).contains(percent) else { throw .usage("volume takes a percentage from 0 to 100") }
                await controller.setVolume(percent)
            case .bass(let dB): await controller.setTone(bass: try toneGain(dB, "bass"))
            case .treble(let dB): await controller.setTone(treble: try toneGain(dB, "treble"))
            }
            return ControlReply.line(ControlReply.success)
        } catch {
            return ControlReply.line(ControlReply.failure(error.description))
        }
    }

    static func toneGain(_ dB: Double, _ name: String) throws(ControlError) -> Double {
        guard ToneControl.range.contains(dB) else {
            throw .usage("\(name) takes a gain in dB from \(Int(ToneControl.range.lowerBound)) to \(Int(ToneControl.range.upperBound)), not \(dB)")
        }
        return dB
    }

    /// `--ago`: a duration within what a timeshift may be, so the date it makes stays a real date.
    static func agoSeconds(_ text: String) throws(ControlError) -> Double {
        guard let seconds = parseDuration(text), seconds <= ApplianceConfig.maximumTimeshift else {
            throw .usage("--ago: a duration like 1h, 15m or 90s, at most \(DurationText.describe(ApplianceConfig.maximumTimeshift)), not '\(LogField.escaped(text))'")
        }
        return seconds
    }
}
