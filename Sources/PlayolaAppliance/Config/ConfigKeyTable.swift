import PlayolaApplianceSupport
import PlayolaEngine
/// One INI key: its name and how its value enters the configuration.
struct ConfigKey: Sendable {
    let name: String
    let read: @Sendable (inout ConfigValidator, INIEntry) -> Void

    init(_ name: String, _ read: @escaping @Sendable (inout ConfigValidator, INIEntry) -> Void) {
        self.name = name
        self.read = read
    }
}

/// Each section's keys, written once: `ConfigValidator` reads entries through these tables and takes the
/// names it knows from them (the unknown-key suggestions, and `ManualPageTests`' comparison with
/// `playola.ini(5)`). Keys that depend on each other (`token` and `token_file`, the GPIO lines in use) are
/// gathered here and checked together by the validator.
extension ConfigValidator {
    static let player: [ConfigKey] = [
        ConfigKey("station") { validator, entry in
            validator.config.player.station = entry.value
            validator.stationReferences.append((entry.value, entry.line))
        },
        ConfigKey("device") { validator, entry in
            if let problem = ConfigValue.deviceProblem(entry.value) {
                validator.error(problem, entry.line)
            } else {
                validator.config.player.device = entry.value
            }
        },
        ConfigKey("volume") { validator, entry in
            if let volume = validator.accepted(ConfigValue.wholeNumber(entry.value, where: (0...100).contains), entry,
                                               must: "be a whole number from 0 to 100") {
                validator.config.player.volume = volume
            }
        },
        ConfigKey("rate") { validator, entry in
            let rate = validator.accepted(entry, off: "auto", must: "be auto, 48000 or 44100") {
                ConfigValue.wholeNumber($0, where: [48000, 44100].contains)
            }
            if let rate { validator.config.player.rate = rate }
        },
        ConfigKey("idle_close") { validator, entry in
            // The device stays open on silence across pauses (closing it stops the I2S clock, and many
            // DACs click); after this long idle it is closed. "never" keeps it open.
            let limit = ApplianceConfig.maximumIdleClose
            let seconds = validator.accepted(entry, off: "never",
                                             must: "be a duration like 10m, 90s or 1h up to \(DurationText.describe(limit)), or never") {
                parseDuration($0).flatMap { $0 <= limit ? $0 : nil }
            }
            if let seconds { validator.config.player.idleClose = seconds }
        },
        ConfigKey("bass") { validator, entry in
            if let dB = validator.decibels(entry) { validator.config.player.bass = dB }
        },
        ConfigKey("treble") { validator, entry in
            if let dB = validator.decibels(entry) { validator.config.player.treble = dB }
        },
        ConfigKey("clock_hold") { validator, entry in
            if let hold = validator.accepted(ClockHold(rawValue: entry.value), entry, must: "be stuff or resample") {
                validator.config.player.clockHold = hold
            }
        },
    ]

    static let service: [ConfigKey] = [
        ConfigKey("socket") { validator, entry in
            guard let path = validator.absolutePath(entry) else { return }
            if path.utf8.count > maximumSocketPath {
                validator.error("socket must be at most \(maximumSocketPath) bytes long (a Unix socket limit), "
                                + "not \(path.utf8.count)", entry.line)
            } else {
                validator.config.service.socket = path
            }
        },
        ConfigKey("state_dir") { validator, entry in
            if let path = validator.absolutePath(entry) { validator.config.service.stateDir = path }
        },
    ]

    static let cache: [ConfigKey] = [
        ConfigKey("dir") { validator, entry in
            validator.cacheDirLine = entry.line
            if let path = validator.absolutePath(entry) { validator.config.cache.dir = path }
        },
        ConfigKey("size") { validator, entry in
            guard let size = ConfigValue.byteSize(entry.value) else {
                return validator.error("size must be a number of bytes with an optional k, M or G suffix, like 64M, "
                                       + "not '\(entry.value)'", entry.line)
            }
            if size < ApplianceConfig.Cache.minimumSize {
                validator.error("cache size \(entry.value) is too small: "
                                + "at least 16M is needed to hold the playing and the next spins", entry.line)
            } else if size > ApplianceConfig.Cache.maximumSize {
                validator.error("cache size \(entry.value) is too large: at most \(ByteCountText.describe(ApplianceConfig.Cache.maximumSize))", entry.line)
            } else {
                validator.config.cache.size = size
            }
        },
    ]

    static let playola: [ConfigKey] = [
        ConfigKey("api") { validator, entry in
            validator.apiLine = entry.line
            if let api = validator.accepted(ConfigValue.httpURL(entry.value), entry, must: "be an http:// or https:// URL") {
                validator.config.playola.api = api
            }
        },
        ConfigKey("token_file") { validator, entry in
            if validator.absolutePath(entry) != nil { validator.tokenFileEntry = entry }
        },
        ConfigKey("token") { validator, entry in validator.tokenEntry = entry },
    ]

    /// The fixed keys of `[gpio]`; `station NAME` keys are the validator's, as their names vary.
    static let gpio: [ConfigKey] = [
        ConfigKey("chip") { validator, entry in
            if let chip = validator.accepted(entry.value.isEmpty ? nil : entry.value, entry, must: "name a GPIO chip such as gpiochip0") {
                validator.config.gpio.chip = chip
            }
        },
    ] + ButtonAction.keyed.map { key, action in
        ConfigKey(key) { validator, entry in
            if let ref = validator.gpioLine(entry.value, at: entry.line) {
                validator.config.gpio.buttons.append(.init(action: action, lineRef: ref, line: entry.line))
            }
        }
    } + [
        ConfigKey("encoder") { validator, entry in
            let parts = entry.value.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmedBlanks }
            guard parts.count == 2 else { return validator.error("encoder needs two lines (A, B), not '\(entry.value)'", entry.line) }
            let a = validator.gpioLine(parts[0], at: entry.line), b = validator.gpioLine(parts[1], at: entry.line)
            if let a, let b { validator.config.gpio.encoder = .init(a: a, b: b, line: entry.line) }
        },
        ConfigKey("encoder_switch") { validator, entry in
            if let ref = validator.gpioLine(entry.value, at: entry.line) { validator.config.gpio.encoderSwitch = ref }
        },
        ConfigKey("encoder_action") { validator, entry in
            if let action = validator.accepted(GPIOConfig.EncoderAction(rawValue: entry.value), entry, must: "be volume or station") {
                validator.config.gpio.encoderAction = action
            }
        },
        ConfigKey("debounce_ms") { validator, entry in
            if let ms = validator.milliseconds(entry, in: 0...1000) { validator.config.gpio.debounceMs = ms }
        },
        ConfigKey("long_press_ms") { validator, entry in
            if let ms = validator.milliseconds(entry, in: 100...10000) { validator.config.gpio.longPressMs = ms }
        },
        ConfigKey("active_low") { validator, entry in
            if let activeLow = validator.accepted(ConfigValue.bool(entry.value), entry, must: "be true or false") {
                validator.config.gpio.activeLow = activeLow
            }
        },
    ]

    static let led: [ConfigKey] = [
        ConfigKey("status") { validator, entry in
            if let ref = validator.gpioLine(entry.value, at: entry.line) { validator.config.led.status = ref }
        },
        ConfigKey("network") { validator, entry in
            if let ref = validator.gpioLine(entry.value, at: entry.line) { validator.config.led.network = ref }
        },
    ]

    static let log: [ConfigKey] = [
        ConfigKey("level") { validator, entry in
            if let level = validator.accepted(ApplianceConfig.LogLevel(rawValue: entry.value), entry, must: "be error, warning, info or debug") {
                validator.config.log.level = level
            }
        },
    ]

    static let update: [ConfigKey] = [
        ConfigKey("url") { validator, entry in
            guard let url = validator.accepted(ConfigValue.httpURL(entry.value), entry, must: "be an http:// or https:// URL") else { return }
            if !url.lowercased().hasPrefix("https:") {
                validator.warning("url is http://: the bundle's signature still decides what is installed, but the download is unencrypted; use https://", entry.line)
            }
            validator.config.update.url = url
        },
        // Read by root's installer from the FAT copy (image/files/usr/lib/playola/firmware-update); here it is
        // checked, so a misspelt value is named rather than taken as no.
        ConfigKey("allow_older") { validator, entry in
            if let allow = validator.accepted(ConfigValue.bool(entry.value), entry, must: "be true or false") {
                validator.config.update.allowOlder = allow
            }
        },
    ]
}
