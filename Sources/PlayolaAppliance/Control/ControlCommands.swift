import PlayolaConfig
import PlayolaApplianceSupport
import PlayolaEngine

/// What each control request does, for the control socket (one request line → one answer line) and for the
/// MPD server, which calls `perform` with the same requests.
package enum ControlCommands {
    /// One request line → its JSON answer (always an object with a boolean `ok`).
    package static func handle(_ line: String, controller: ApplianceController) async -> String {
        do throws(ControlError) {
            return try await perform(try ControlRequest(line: line), controller: controller).line
        } catch {
            return ControlReply.line(ControlReply.failure(error.description))
        }
    }

    /// Carries out `request`; throws the refusal a client is told (an unknown station, a value out of range).
    /// `subscribe` answers the status now: the connection's stream of changes is its server's part.
    package static func perform(_ request: ControlRequest, controller: ApplianceController) async throws(ControlError) -> ControlAnswer {
        switch request {
        case .status, .subscribe:
            return .status(await controller.status())
        case .stations:
            return .stations(await controller.stationList())
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
        return .done
    }

    package static func toneGain(_ dB: Double, _ name: String) throws(ControlError) -> Double {
        guard ToneControl.range.contains(dB) else {
            throw .usage("\(name) takes a gain in dB from \(Int(ToneControl.range.lowerBound)) to \(Int(ToneControl.range.upperBound)), not \(dB)")
        }
        return dB
    }

    /// `--ago`: a duration within what a timeshift may be, so the date it makes stays a real date.
    package static func agoSeconds(_ text: String) throws(ControlError) -> Double {
        guard let seconds = parseDuration(text), seconds <= ApplianceConfig.maximumTimeshift else {
            throw .usage("--ago: a duration like 1h, 15m or 90s, at most \(DurationText.describe(ApplianceConfig.maximumTimeshift)), not '\(LogField.escaped(text))'")
        }
        return seconds
    }
}
