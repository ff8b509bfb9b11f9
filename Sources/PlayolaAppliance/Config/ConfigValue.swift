import PlayolaEngine

/// How config values are spelled.
package enum ConfigValue {
    /// `3`, `-4.5`, `+2`: decibels within `ToneControl.range` (plain digits: no exponent, no "inf").
    package static func decibels(_ text: String) -> Double? {
        let unsigned = text.hasPrefix("-") || text.hasPrefix("+") ? text.dropFirst() : Substring(text)
        let parts = unsigned.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), wholeNumber(parts[0]) != nil, parts.count == 1 || wholeNumber(parts[1]) != nil,
              let dB = Double(text), ToneControl.range.contains(dB) else { return nil }
        return dB
    }

    /// `64M`: bytes with an optional binary k, M or G suffix.
    package static func byteSize(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30]
        var digits = Substring(text)
        var scale: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            digits.removeLast()
            scale = unit
        }
        guard let count = wholeNumber(digits) else { return nil }
        let (bytes, overflow) = Int64(count).multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }

    /// `-3h`, `-15m`, `-90s` → seconds, negative. The sign is required so nobody reads `3h` as "3 hours ahead".
    static func timeshift(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        guard text.hasPrefix("-"), let last = text.last, let unit = units[last],
              let count = wholeNumber(text.dropFirst().dropLast()) else { return nil }
        let seconds = Double(count) * unit
        return seconds <= ApplianceConfig.maximumTimeshift ? -seconds : nil
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// Why `device` would not survive on an appliance, or nil. Card indexes follow USB enumeration order, so
    /// `hw:0` can become another card after a re-plug or a reboot; `CARD=<name>` cannot.
    static func deviceProblem(_ device: String) -> String? {
        guard !device.isEmpty else {
            return "device must be an ALSA PCM name such as default or hw:CARD=Audio,DEV=0, not ''"
        }
        guard let colon = device.firstIndex(of: ":") else { return nil }
        let plugin = device[..<colon]
        let arguments = device[device.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false)
        guard let card = arguments.first, wholeNumber(card.hasPrefix("CARD=") ? card.dropFirst(5) : card) != nil else {
            return nil
        }
        var dev = 0
        if let second = arguments.dropFirst().first {
            dev = wholeNumber(second.hasPrefix("DEV=") ? second.dropFirst(4) : second) ?? 0
        }
        return "device '\(device)' names a card by index; use \(plugin):CARD=<name>,DEV=\(dev) so it survives re-plugging"
    }

    /// Plain ASCII digits only: `Int("+5")` would also accept a sign.
    static func wholeNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isWholeNumber }) else { return nil }
        return Int(text)
    }

    /// A whole number that `allowed` accepts (`(0...100).contains`, `[48000, 44100].contains`).
    static func wholeNumber(_ text: String, where allowed: (Int) -> Bool) -> Int? {
        wholeNumber(Substring(text)).flatMap { allowed($0) ? $0 : nil }
    }

    /// An `http://` or `https://` URL with something after the scheme.
    package static func httpURL(_ text: String) -> String? {
        ["http://", "https://"].contains { text.hasPrefix($0) && text.count > $0.count } ? text : nil
    }
}
