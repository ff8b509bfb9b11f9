import PlayolaEngine

/// The GPIO pins a Raspberry Pi's `config.txt` gives to a sound card: a DAC HAT's overlay takes the I2S pins
/// (GPIO18–21), and one whose codec is set up over I2C takes GPIO2 and GPIO3 too. A button or LED on such a
/// pin either steals the card's clock or never sees a press, so `check-config` warns about it.
enum SoundCardPins {
    /// A pin and what in `config.txt` takes it.
    struct Taken: Equatable {
        var pin: Int
        /// As written: `dtoverlay=hifiberry-dac` or `dtparam=i2s=on`.
        var by: String
        var line: Int
    }

    static let i2s = Array(18...21)
    static let i2c = [2, 3]

    /// The overlays of the sound cards owners fit (the Pi firmware's overlays/README), by whether their
    /// codec also takes the I2C pins.
    static let i2sOnly: Set = [
        "playola-i2s-dac", "hifiberry-dac", "hifiberry-dac8x", "rpi-dac", "i2s-dac", "pibell", "adau7002-simple", "max98357a",
        "googlevoicehat-soundcard", "i2s-mmap", "akkordion-iqdacplus",
    ]
    static let i2sAndI2C: Set = [
        "hifiberry-dacplus", "hifiberry-dacplus-std", "hifiberry-dacplus-pro", "hifiberry-dacplushd", "hifiberry-dacplusadc",
        "hifiberry-dacplusadcpro", "hifiberry-dacplusdsp", "hifiberry-digi", "hifiberry-digi-pro", "hifiberry-amp",
        "hifiberry-amp3", "hifiberry-amp4pro", "iqaudio-dac", "iqaudio-dacplus", "iqaudio-digi-wm8804-audio", "iqaudio-codec",
        "rpi-dacplus", "rpi-dacpro", "rpi-digiampplus", "rpi-codeczero", "justboom-dac", "justboom-digi", "justboom-both",
        "allo-boss-dac-pcm512x-audio", "allo-boss2-dac-audio", "allo-digione", "allo-katana-dac-audio",
        "allo-piano-dac-pcm512x-audio", "allo-piano-dac-plus-pcm512x-audio", "audioinjector-wm8731-audio",
        "audioinjector-addons", "audioinjector-isolated-soundcard", "audioinjector-ultra", "fe-pi-audio", "i-sabre-q2m",
        "merus-amp", "dionaudio-loco", "dionaudio-loco-v2", "applepi-dac", "wm8960-soundcard", "seeed-voicecard",
    ]

    /// What `text` (a `config.txt`) gives to a sound card, in line order. Conditional sections (`[pi4]`) are
    /// read as if they apply: a pin a card takes on one model is not one to wire a button to.
    static func taken(inConfigTxt text: String) -> [Taken] {
        var taken: [Taken] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = line.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
            guard words.count == 2 else { continue }
            // `dtoverlay=NAME,param=value`: the overlay is the first field.
            let value = words[1].split(separator: ",").first.map(String.init) ?? ""
            let written = "\(words[0])=\(words[1])"
            var pins: [Int] = []
            switch words[0] {
            case "dtoverlay" where i2sAndI2C.contains(value): pins = i2s + i2c
            case "dtoverlay" where i2sOnly.contains(value): pins = i2s
            case "dtparam" where words[1].filter({ $0 != " " }) == "i2s=on": pins = i2s
            default: continue
            }
            taken += pins.map { Taken(pin: $0, by: written, line: index + 1) }
        }
        return taken
    }

    /// A warning for each line (`uses`: the reference and its INI line) on a pin the sound card of
    /// `bootConfig` takes: the card loses its clock or the button its presses, whichever the kernel hands the
    /// pin to.
    static func conflicts(_ uses: [(ref: LineRef, line: Int)], chip: String?, bootConfig: BootConfigText) -> [(message: String, line: Int)] {
        let taken = taken(inConfigTxt: bootConfig.text)
        guard !taken.isEmpty else { return [] }
        return uses.sorted(by: { $0.line < $1.line }).compactMap { use in
            guard let pin = pin(of: use.ref, chip: chip), let by = taken.first(where: { $0.pin == pin }) else { return nil }
            let what = i2s.contains(pin) ? "GPIO18-21 for I2S" : "GPIO2 and GPIO3 for I2C"
            return ("GPIO\(pin) is taken by the sound card: \(by.by) (\(bootConfig.path):\(by.line)) uses \(what); "
                    + "wire this to a free pin", use.line)
        }
    }

    /// The Pi pin a line names: `GPIO19`, or offset 19 on the Pi's own chip (gpiochip0 through the Pi 4).
    static func pin(of line: LineRef, chip: String?) -> Int? {
        switch line {
        case .name(let name):
            guard name.hasPrefix("GPIO"), let pin = Int(name.dropFirst(4)) else { return nil }
            return pin
        case .offset(let offset):
            return chip == "gpiochip0" || chip == "/dev/gpiochip0" ? offset : nil
        }
    }
}
