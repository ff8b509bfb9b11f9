import Glibc
import PlayolaEngine
import PlayolaApplianceSupport

extension ApplianceConfig {
    /// Reads and checks the config file at `path`. `config` is nil when any diagnostic is an error; warnings
    /// do not block. Diagnostics come in line order.
    package static func load(path: String) -> (config: ApplianceConfig?, diagnostics: [Diagnostic]) {
        do throws(ConfigError) {
            return load(bytes: try INIFile.read(path), file: path)
        } catch {
            return (nil, error.diagnostics(file: path))
        }
    }

    /// Checks `bytes`, read from `file` (named in the diagnostics): what was checked is exactly what may
    /// then be kept, even if the file changes meanwhile. The Pi's `config.txt` beside `file`, else the boot
    /// partition's, says which pins the sound card takes.
    package static func load(bytes: [UInt8], file: String) -> (config: ApplianceConfig?, diagnostics: [Diagnostic]) {
        load(bytes: bytes, file: file, bootConfig: BootConfigText.near(file))
    }

    /// `bootConfig`: the `config.txt` whose sound card's pins no button may take.
    package static func load(bytes: [UInt8], file: String, bootConfig: BootConfigText?) -> (config: ApplianceConfig?, diagnostics: [Diagnostic]) {
        let ini: INIFile
        do throws(ConfigError) {
            ini = try INIFile.parse(bytes: bytes)
        } catch {
            return (nil, error.diagnostics(file: file))
        }
        var validator = ConfigValidator(file: file)
        validator.bootConfig = bootConfig
        let config = validator.validate(ini)
        return (config, validator.diagnostics)
    }
}

/// INI entries → `ApplianceConfig`, reporting every problem rather than stopping at the first, so one run of
/// `playola check-config` shows all there is to fix.
struct ConfigValidator {
    static let sectionNames = ["player", "service", "cache", "playola", "gpio", "led", "log", "network", "update", "remote", "hooks", "fleet"]
    // The keys each section knows, from its table (`ConfigKeyTable.swift`): written once.
    static let playerKeys = player.map(\.name)
    static let serviceKeys = service.map(\.name)
    static let cacheKeys = cache.map(\.name)
    static let playolaKeys = playola.map(\.name)
    static let gpioKeys = gpio.map(\.name)
    static let ledKeys = led.map(\.name)
    static let logKeys = log.map(\.name)
    static let updateKeys = update.map(\.name)
    static let stationTypes: [(type: String, keys: [String])] = [("playola", ["id", "timeshift"]), ("stream", ["url", "header"]), ("local", ["path"])]
    static let stationKeys = ["type"] + stationTypes.flatMap(\.keys)
    /// Keys that may repeat within a section.
    static let repeatableKeys: Set = ["header"]
    /// sun_path holds 108 bytes including the terminating NUL.
    static let maximumSocketPath = 107

    let file: String
    private(set) var diagnostics: [Diagnostic] = []
    /// What the entries read so far make; the key table's readers write into it.
    var config = ApplianceConfig()
    /// The `[cache] dir` line, for the cache directory's cross-check.
    var cacheDirLine: Int?
    /// The `[playola] api` line, for the warning about a token sent unencrypted.
    var apiLine: Int?
    /// `[playola] token_file` and `token`, checked together once the section is read.
    var tokenFileEntry: INIEntry?
    var tokenEntry: INIEntry?
    /// Every GPIO line in use, to find one wired to two things.
    private var gpioLines: [(ref: LineRef, line: Int)] = []
    /// The Pi's `config.txt`, for the pins its sound card takes.
    var bootConfig: BootConfigText?
    /// Station names referred to before all stations are known.
    var stationReferences: [(name: String, line: Int)] = []

    init(file: String) { self.file = file }

    mutating func validate(_ ini: INIFile) -> ApplianceConfig? {
        var sectionsByName: [String: [INIEntry]] = [:]
        var stationHeaders: [(name: String, line: Int)] = []
        var accepted: Set<Int> = []
        var firstStationLine: [String: Int] = [:]
        var sawStationSection = false

        for section in ini.sections {
            if Self.sectionNames.contains(section.name) {
                accepted.insert(section.line)
            } else if let name = Self.stationName(fromSection: section.name) {
                sawStationSection = true
                if name.isEmpty {
                    error("[station] needs a name, like [station porch]", section.line)
                } else if !Self.isValidStationName(name) {
                    error("station name '\(name)' may use only letters, digits, '-', '_' and '.'", section.line)
                } else if let first = firstStationLine[name] {
                    error("station '\(name)' is configured twice (first at line \(first))", section.line)
                } else {
                    firstStationLine[name] = section.line
                    stationHeaders.append((name, section.line))
                    accepted.insert(section.line)
                }
            } else {
                warning("unknown section [\(section.name)]\(Self.sectionSuggestion(section.name))", section.line)
            }
        }

        // A repeated [player] merges into one; a repeated key is an error wherever it is.
        var firstKeyLine: [String: Int] = [:]
        var stationEntries: [Int: [INIEntry]] = [:]
        for entry in ini.entries {
            if entry.sectionLine == 0 {
                warning("key '\(entry.key)' is outside any section", entry.line)
                continue
            }
            guard accepted.contains(entry.sectionLine) else { continue }
            let isStation = !Self.sectionNames.contains(entry.section)
            let scope = isStation ? "\(entry.sectionLine)" : entry.section
            if !Self.repeatableKeys.contains(entry.key) {
                let id = scope + "\n" + entry.key
                if let first = firstKeyLine[id] {
                    error("duplicate key '\(entry.key)' in [\(entry.section)] (first at line \(first))", entry.line)
                    continue
                }
                firstKeyLine[id] = entry.line
            }
            if isStation {
                stationEntries[entry.sectionLine, default: []].append(entry)
            } else {
                sectionsByName[entry.section, default: []].append(entry)
            }
        }

        for header in stationHeaders {
            if let station = readStation(header.name, line: header.line, entries: stationEntries[header.line] ?? []) {
                config.stations.append(station)
            }
        }
        read(sectionsByName["player"] ?? [], Self.player)
        read(sectionsByName["service"] ?? [], Self.service)
        read(sectionsByName["cache"] ?? [], Self.cache)
        if let problem = CacheDirectoryCheck.problem(cache: config.cache.dir, state: config.service.stateDir) {
            error(problem, cacheDirLine ?? 0)
        }
        read(sectionsByName["playola"] ?? [], Self.playola)
        checkToken()
        readGPIO(sectionsByName["gpio"] ?? [])
        read(sectionsByName["led"] ?? [], Self.led)
        read(sectionsByName["log"] ?? [], Self.log)
        read(sectionsByName["update"] ?? [], Self.update)
        readNetwork(sectionsByName["network"] ?? [])
        readRemote(sectionsByName["remote"] ?? [])
        readHooks(sectionsByName["hooks"] ?? [])
        readFleet(sectionsByName["fleet"] ?? [], sectionLine: ini.sections.first { $0.name == "fleet" }?.line)

        if !sawStationSection {
            error("no station is configured: add a [station NAME] section", 0)
        } else if !stationHeaders.isEmpty {
            // Named stations count even when their section has an error, so one mistake is not reported twice.
            checkStationReferences(names: stationHeaders.map(\.name))
        }
        checkGPIOLines()

        diagnostics = diagnostics.enumerated()
            .sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
            .map(\.element)
        return diagnostics.contains { $0.severity == .error } ? nil : config
    }

    // MARK: Sections

    /// A section's entries through its key table; a key not in it is reported with a suggestion.
    private mutating func read(_ entries: [INIEntry], _ keys: [ConfigKey]) {
        for entry in entries { read(entry, keys) }
    }

    private mutating func read(_ entry: INIEntry, _ keys: [ConfigKey]) {
        guard let key = keys.first(where: { $0.name == entry.key }) else {
            return unknownKey(entry, known: keys.map(\.name))
        }
        key.read(&self, entry)
    }

    /// `token` and `token_file` together.
    private mutating func checkToken() {
        switch (tokenFileEntry, tokenEntry) {
        case let (fileEntry?, tokenEntry?):
            error("give token or token_file, not both", max(fileEntry.line, tokenEntry.line))
        case let (fileEntry?, nil):
            config.playola.tokenSource = .file(fileEntry.value)
            checkTokenFile(fileEntry)
        case let (nil, tokenEntry?):
            config.playola.tokenSource = .inline(tokenEntry.value)
            if case .failure(let problem) = TokenFile.check(tokenEntry.value) {
                warning("token \(problem.reason): listening sessions are not reported until it is fixed", tokenEntry.line)
            }
            if TokenFile.isWorldReadable(file) == true {
                warning("config file \(file) holds a token and is readable by everyone; chmod 600 it", tokenEntry.line)
            }
        case (nil, nil):
            break
        }
        if config.playola.tokenSource != nil, let apiLine, config.playola.api.hasPrefix("http://") {
            warning("api is http://: the token travels unencrypted to \(config.playola.api); use https://", apiLine)
        }
    }

    private mutating func checkTokenFile(_ entry: INIEntry) {
        let path = entry.value
        switch TokenFile.isWorldReadable(path) {
        case true?:
            warning("token file \(path) is readable by everyone; chmod 600 it", entry.line)
        case false?:
            break
        case nil where errno == ENOENT:
            // Not an error: the token may be provisioned after the config, and it is read again before each use.
            warning("token file \(path) does not exist; listening sessions are not reported without a token", entry.line)
        case nil:
            warning("token file \(path): \(Errno.current)", entry.line)
        }
        if let problem = TokenFile.problem(path) {
            warning("token file \(path) \(problem): listening sessions are not reported until it is fixed", entry.line)
        }
    }

    private mutating func readGPIO(_ entries: [INIEntry]) {
        for entry in entries {
            let value = entry.value
            if let name = Self.stationName(fromSection: entry.key) {
                guard !name.isEmpty else {
                    error("a station button needs the station's name, like 'station porch'", entry.line)
                    continue
                }
                stationReferences.append((name, entry.line))
                if let ref = gpioLine(value, at: entry.line) {
                    config.gpio.buttons.append(.init(action: .station(name), lineRef: ref, line: entry.line))
                }
                continue
            }
            read(entry, Self.gpio)
        }
    }

    private mutating func readStation(_ name: String, line: Int, entries: [INIEntry]) -> StationConfig? {
        guard let typeEntry = entries.first(where: { $0.key == "type" }) else {
            error("station '\(name)' needs a type: playola, stream or local", line)
            return nil
        }
        let type = typeEntry.value
        guard let typeKeys = Self.stationTypes.first(where: { $0.type == type })?.keys else {
            error("type must be playola, stream or local, not '\(type)'", typeEntry.line)
            return nil
        }
        var values: [String: INIEntry] = [:]
        var headers: [String] = []
        var valid = true
        for entry in entries where entry.key != "type" {
            if !typeKeys.contains(entry.key) {
                if Self.stationKeys.contains(entry.key) {
                    warning("key '\(entry.key)' does not apply to a \(type) station", entry.line)
                } else {
                    unknownKey(entry, known: ["type"] + typeKeys)
                }
            } else if entry.key == "header" {
                if Self.isHeaderLine(entry.value) {
                    headers.append(entry.value)
                } else {
                    error("header must look like 'Name: value', not '\(entry.value)'", entry.line)
                    valid = false
                }
            } else if !entry.value.isEmpty {
                values[entry.key] = entry
            }
        }
        func required(_ key: String, _ article: String) -> INIEntry? {
            guard let entry = values[key] else {
                error("station '\(name)' (type \(type)) needs \(article) \(key)", line)
                return nil
            }
            return entry
        }
        let kind: StationKind
        switch type {
        case "playola":
            guard let id = required("id", "an") else { return nil }
            var timeshift: Double?
            if let entry = values["timeshift"] {
                timeshift = ConfigValue.timeshift(entry.value)
                if timeshift == nil {
                    error("timeshift must look like -3h, -15m or -90s, at most "
                          + "\(DurationText.describe(ApplianceConfig.maximumTimeshift)) back, not '\(entry.value)'", entry.line)
                    return nil
                }
            }
            kind = .playola(id: id.value, timeshift: timeshift)
        case "stream":
            guard let entry = required("url", "a"),
                  let url = accepted(ConfigValue.httpURL(entry.value), entry, must: "be an http:// or https:// URL") else { return nil }
            kind = .stream(url: url, headers: headers)
        default:
            guard let path = required("path", "a"), absolutePath(path) != nil else { return nil }
            // Not an error: a USB stick may come later, and an error would also cost the owner the Wi-Fi.
            if let problem = Self.folderProblem(path.value) { warning("station '\(name)': \(problem)", path.line) }
            kind = .local(path: path.value)
        }
        return valid ? StationConfig(name: name, kind: kind, line: line) : nil
    }

    // MARK: Cross-checks

    /// Each reference to a station that is not configured, with the nearest name or a few of them: never
    /// the whole list, which for a file of many stations made every error as long as the file.
    private mutating func checkStationReferences(names: [String]) {
        let configured = Set(names)
        // Each search compares the name with every station: with thousands of each (a generated file), only
        // the first few references get one, the ones printed (`Diagnostic.bounded`).
        let searchEach = names.count * stationReferences.count <= 100_000
        let listed = 5
        let list = "stations are: " + names.prefix(listed).joined(separator: ", ")
            + (names.count > listed ? " and \(Diagnostic.grouped(names.count - listed)) more" : "")
        var searched = 0
        for reference in stationReferences where !configured.contains(reference.name) {
            var suggestion: String?
            if searchEach || searched < Diagnostic.shownPerKind {
                suggestion = DidYouMean.closest(to: reference.name, in: names)
                searched += 1
            }
            error("station '\(reference.name)' is not configured; " + (suggestion.map { "did you mean '\($0)'?" } ?? list), reference.line)
        }
    }

    private mutating func checkGPIOLines() {
        var firstUse: [LineRef: Int] = [:]
        for use in gpioLines.sorted(by: { $0.line < $1.line }) {
            if let first = firstUse[use.ref] {
                error("\(use.ref) is used twice (also at line \(first))", use.line)
            } else {
                firstUse[use.ref] = use.line
            }
        }
        if config.gpio.chip == nil, let offset = gpioLines.first(where: { if case .offset = $0.ref { true } else { false } }) {
            error("\(offset.ref) needs a chip: add chip = gpiochip0 (or the right chip) to [gpio]", offset.line)
        }
        if let bootConfig {
            for conflict in SoundCardPins.conflicts(gpioLines, chip: config.gpio.chip, bootConfig: bootConfig) {
                warning(conflict.message, conflict.line)
            }
        }
    }

    // MARK: Values

    mutating func gpioLine(_ text: String, at line: Int) -> LineRef? {
        guard let ref = LineRef(parsing: text) else {
            error("'\(text)' is not a GPIO line (a name like GPIO17 or an offset like 17)", line)
            return nil
        }
        gpioLines.append((ref, line))
        return ref
    }

    /// `value`, read from `entry`; nil, a value that did not read, is reported as "KEY must WHAT, not 'TEXT'".
    mutating func accepted<Value>(_ value: Value?, _ entry: INIEntry, must what: String) -> Value? {
        if value == nil { error("\(entry.key) must \(what), not '\(entry.value)'", entry.line) }
        return value
    }

    /// As `accepted`, for a setting that the word `off` (`auto`, `never`) turns off: then `.some(nil)`.
    mutating func accepted<Value>(_ entry: INIEntry, off: String, must what: String, _ read: (String) -> Value?) -> Value?? {
        if entry.value == off { return .some(nil) }
        guard let value = accepted(read(entry.value), entry, must: what) else { return nil }
        return value
    }

    mutating func absolutePath(_ entry: INIEntry) -> String? {
        accepted(entry.value.hasPrefix("/") ? entry.value : nil, entry, must: "be an absolute path")
    }

    mutating func milliseconds(_ entry: INIEntry, in range: ClosedRange<Int>) -> Int? {
        accepted(ConfigValue.wholeNumber(entry.value, where: range.contains), entry,
                 must: "be a whole number of milliseconds from \(range.lowerBound) to \(range.upperBound)")
    }

    // MARK: Names

    /// `station NAME` (a section, or a [gpio] key) → NAME; "" for a bare `station`; nil for anything else.
    static func stationName(fromSection section: String) -> String? {
        guard section.hasPrefix("station") else { return nil }
        let rest = section.dropFirst("station".count)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        return String(rest).trimmedBlanks
    }

    /// Names travel in control commands, logs and the state file; keep them to one plain word.
    static func isValidStationName(_ name: String) -> Bool {
        name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }

    /// Why a local station's folder cannot be read now, or nil.
    static func folderProblem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT ? "folder \(path) does not exist: the station plays nothing until it does"
                : "folder \(path): \(Errno.current)"
        }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : "\(path) is not a folder"
    }

    static func isHeaderLine(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let name = text[..<colon]
        return !name.isEmpty && !name.contains(where: { $0 == " " || $0 == "\t" })
    }

    private static func sectionSuggestion(_ section: String) -> String {
        // `[stations porch]`: the misspelling is in the first word, the name is fine.
        let words = section.split(separator: " ", maxSplits: 1)
        if words.count == 2, DidYouMean.editDistance(words[0].lowercased(), "station") <= DidYouMean.maximumDistance {
            return "; did you mean [station \(String(words[1]).trimmedBlanks)]?"
        }
        return DidYouMean.suffix(for: section, in: sectionNames, open: "[", close: "]")
    }

    // MARK: Reporting

    mutating func unknownKey(_ entry: INIEntry, known: [String]) {
        var suggestion = DidYouMean.suffix(for: entry.key, in: known)
        let words = entry.key.split(separator: " ", maxSplits: 1)
        if entry.section == "gpio", words.count == 2,
           DidYouMean.editDistance(words[0].lowercased(), "station") <= DidYouMean.maximumDistance {
            suggestion = "; did you mean 'station \(String(words[1]).trimmedBlanks)'?"
        }
        warning("unknown key '\(entry.key)' in [\(entry.section)]\(suggestion)", entry.line)
    }

    mutating func error(_ message: String, _ line: Int) {
        diagnostics.append(.error(message, file: file, line: line))
    }

    mutating func warning(_ message: String, _ line: Int) {
        diagnostics.append(.warning(message, file: file, line: line))
    }
}

extension ConfigValidator {
    /// A tone control's gain: dB within `ToneControl.range`, else an error naming the key and the range.
    mutating func decibels(_ entry: INIEntry) -> Double? {
        accepted(ConfigValue.decibels(entry.value), entry,
                 must: "be a gain in dB from \(Int(ToneControl.range.lowerBound)) to \(Int(ToneControl.range.upperBound)), such as 3 or -4.5")
    }
}
