import Foundation
@testable import PlayolaAppliance
import XCTest

final class ConfigTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A station, so cases are about one mistake and not also about "no station is configured".
    private let demo = "[station demo]\ntype = local\npath = /srv/demo\n"

    @discardableResult
    private func write(_ text: String, name: String = "playola.ini", mode: Int = 0o600) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// Loads `text` as a file; diagnostics with the file's path written as FILE.
    private func load(_ text: String, mode: Int = 0o600) throws -> (config: ApplianceConfig?, lines: [String]) {
        let path = try write(text, mode: mode)
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        return (config, diagnostics.map { $0.description.replacingOccurrences(of: path, with: "FILE") })
    }

    func testSampleConfigLoadsWithoutErrors() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = root.appendingPathComponent("etc/playola.ini").path
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        XCTAssertEqual(diagnostics.filter { $0.severity == .error }.map(\.description), [])
        let sample = try XCTUnwrap(config)
        XCTAssertEqual(sample.stations.map(\.name), ["demo", "porch", "kexp"])
        XCTAssertEqual(sample.stations[1].kind, .playola(id: "9d79fd38-1940-4312-8fe8-3b9b50d49c6c", timeshift: -3 * 3600))
        XCTAssertEqual(sample.stations[2].kind, .stream(url: "https://example.org/stream.mp3", headers: []))
        XCTAssertEqual(sample.player.station, "demo")
        XCTAssertEqual(sample.playola.tokenSource, .file("/etc/playola/token"))
        XCTAssertEqual(sample.gpio.buttons.map(\.action),
                       [.nextStation, .previousStation, .stop, .interrupt, .volumeUp, .volumeDown, .shutdown, .station("porch")])
        XCTAssertEqual(sample.gpio.buttons.first?.lineRef, .name("GPIO17"))
        let encoderLine = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
            .firstIndex { $0.hasPrefix("encoder =") }.map { $0 + 1 }
        XCTAssertEqual(sample.gpio.encoder, GPIOConfig.Encoder(a: .name("GPIO20"), b: .name("GPIO21"), line: try XCTUnwrap(encoderLine)))
        XCTAssertEqual(sample.player.idleClose, 600)
        XCTAssertEqual(sample.led, ApplianceConfig.LED(status: .name("GPIO23"), network: .name("GPIO24")))
    }

    func testEachMistakeGivesItsExactDiagnostic() throws {
        let porch = "[station porch]\ntype = playola\nid = 9d79fd38\n"
        let cases: [(String, [String])] = [
            ("[player]\nvolume 80\n" + demo, ["FILE:2: error: syntax error"]),
            ("[player\nvolume = 80\n" + demo, ["FILE:1: error: syntax error"]),
            ("[player]\nvolme = 80\n" + demo, ["FILE:2: warning: unknown key 'volme' in [player]; did you mean 'volume'?"]),
            ("[player]\nloudness = 80\n" + demo, ["FILE:2: warning: unknown key 'loudness' in [player]"]),
            ("[palyer]\nvolume = 80\n" + demo, ["FILE:1: warning: unknown section [palyer]; did you mean [player]?"]),
            ("[fo]\nx = 1\n" + demo, ["FILE:1: warning: unknown section [fo]; did you mean [log]?"]),
            ("[frobnicate]\nx = 1\n" + demo, ["FILE:1: warning: unknown section [frobnicate]"]),
            ("[stations porch]\ntype = local\n" + demo,
             ["FILE:1: warning: unknown section [stations porch]; did you mean [station porch]?"]),
            ("[player]\nvolume = loud\n" + demo, ["FILE:2: error: volume must be a whole number from 0 to 100, not 'loud'"]),
            ("[player]\nvolume = 101\n" + demo, ["FILE:2: error: volume must be a whole number from 0 to 100, not '101'"]),
            ("[player]\nrate = 96000\n" + demo, ["FILE:2: error: rate must be auto, 48000 or 44100, not '96000'"]),
            ("[player]\ndevice = hw:0\n" + demo,
             ["FILE:2: error: device 'hw:0' names a card by index; use hw:CARD=<name>,DEV=0 so it survives re-plugging"]),
            ("[player]\ndevice = plughw:1,3\n" + demo,
             ["FILE:2: error: device 'plughw:1,3' names a card by index; use plughw:CARD=<name>,DEV=3 so it survives re-plugging"]),
            ("[player]\nstation = x\n" + demo + porch,
             ["FILE:2: error: station 'x' is not configured; stations are: demo, porch"]),
            (demo + demo, ["FILE:4: error: station 'demo' is configured twice (first at line 1)"]),
            ("[player]\nvolume = 80\nvolume = 70\n" + demo,
             ["FILE:3: error: duplicate key 'volume' in [player] (first at line 2)"]),
            ("[player]\nvolume = 80\n[log]\n[player]\nvolume = 70\n" + demo,
             ["FILE:5: error: duplicate key 'volume' in [player] (first at line 2)"]),
            ("[station porch]\ntype = cd\n", ["FILE:2: error: type must be playola, stream or local, not 'cd'"]),
            ("[station porch]\ntype = playola\n", ["FILE:1: error: station 'porch' (type playola) needs an id"]),
            ("[station kexp]\ntype = stream\n", ["FILE:1: error: station 'kexp' (type stream) needs a url"]),
            ("[station demo]\npath = /srv/demo\n", ["FILE:1: error: station 'demo' needs a type: playola, stream or local"]),
            ("[station porch]\ntype = playola\nid = x\ntimeshift = yesterday\n",
             ["FILE:4: error: timeshift must look like -3h, -15m or -90s, at most 30d back, not 'yesterday'"]),
            ("[station demo]\ntype = local\npth = /srv/demo\npath = /srv/demo\n",
             ["FILE:3: warning: unknown key 'pth' in [station demo]; did you mean 'path'?"]),
            ("[station demo]\ntype = local\npath = /srv/demo\nurl = http://x\n",
             ["FILE:4: warning: key 'url' does not apply to a local station"]),
            ("[player]\nvolume = 80\n", ["FILE:0: error: no station is configured: add a [station NAME] section"]),
            ("[gpio]\nstop = banana\n" + demo,
             ["FILE:2: error: 'banana' is not a GPIO line (a name like GPIO17 or an offset like 17)"]),
            ("[gpio]\nstop = GPIO17\nshutdown = GPIO17\n" + demo, ["FILE:3: error: GPIO17 is used twice (also at line 2)"]),
            ("[gpio]\nstop = GPIO23\n[led]\nstatus = GPIO23\n" + demo, ["FILE:4: error: GPIO23 is used twice (also at line 2)"]),
            ("[gpio]\nencoder = GPIO20\n" + demo, ["FILE:2: error: encoder needs two lines (A, B), not 'GPIO20'"]),
            ("[gpio]\nstation porch = GPIO19\n" + demo, ["FILE:2: error: station 'porch' is not configured; stations are: demo"]),
            ("[gpio]\nvolum_up = GPIO6\n" + demo, ["FILE:2: warning: unknown key 'volum_up' in [gpio]; did you mean 'volume_up'?"]),
            ("[gpio]\nstatoin porch = GPIO6\n" + demo,
             ["FILE:2: warning: unknown key 'statoin porch' in [gpio]; did you mean 'station porch'?"]),
            ("[gpio]\nstop = 17\n" + demo, ["FILE:2: error: offset 17 needs a chip: add chip = gpiochip0 (or the right chip) to [gpio]"]),
            ("[cache]\nsize = 1M\n" + demo,
             ["FILE:2: error: cache size 1M is too small: at least 16M is needed to hold the playing and the next spins"]),
            ("[cache]\nsize = big\n" + demo,
             ["FILE:2: error: size must be a number of bytes with an optional k, M or G suffix, like 64M, not 'big'"]),
            ("[log]\nlevel = loud\n" + demo, ["FILE:2: error: level must be error, warning, info or debug, not 'loud'"]),
            ("volume = 80\n" + demo, ["FILE:1: warning: key 'volume' is outside any section"]),
            ("[player]\ndevice = " + String(repeating: "x", count: 300) + "\n" + demo,
             ["FILE:2: error: line is too long: at most 198 characters"]),
        ]
        for (text, expected) in cases {
            let (config, lines) = try load(text)
            XCTAssertEqual(lines, expected, text)
            let hasError = expected.contains { $0.contains(": error: ") }
            XCTAssertEqual(config == nil, hasError, "errors and only errors block: \(text)")
        }
    }

    func testWorldReadableTokenIsAWarning() throws {
        let token = try write("secret\n", name: "token", mode: 0o644)
        let (config, lines) = try load("[playola]\ntoken_file = \(token)\n" + demo)
        XCTAssertEqual(lines, ["FILE:2: warning: token file \(token) is readable by everyone; chmod 600 it"])
        XCTAssertEqual(config?.playola.token(), "secret")

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        XCTAssertEqual(try load("[playola]\ntoken_file = \(token)\n" + demo).lines, [])

        let inline = try load("[playola]\ntoken = secret\n" + demo, mode: 0o644)
        XCTAssertEqual(inline.lines, ["FILE:2: warning: config file FILE holds a token and is readable by everyone; chmod 600 it"])
        XCTAssertEqual(inline.config?.playola.token(), "secret")
        XCTAssertEqual(try load("[playola]\ntoken = secret\n" + demo, mode: 0o600).lines, [])

        XCTAssertEqual(try load("[playola]\ntoken = a\ntoken_file = \(token)\n" + demo).lines,
                       ["FILE:3: error: give token or token_file, not both"])
    }

    func testMissingFile() {
        let path = directory + "/absent.ini"
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        XCTAssertNil(config)
        XCTAssertEqual(diagnostics.map(\.description), ["\(path):0: error: cannot read: No such file or directory"])
    }

    func testDefaults() throws {
        let (config, lines) = try load(demo)
        XCTAssertEqual(lines, [])
        var expected = ApplianceConfig()
        expected.stations = [StationConfig(name: "demo", kind: .local(path: "/srv/demo"), line: 1)]
        XCTAssertEqual(config, expected)
        XCTAssertEqual(expected.player, ApplianceConfig.Player(station: nil, device: "default", volume: 80, rate: nil), "rate = auto is the default")
        XCTAssertEqual(expected.service.socket, "/run/playola/control.sock")
        XCTAssertEqual(expected.service.stateDir, "/var/lib/playola")
        XCTAssertEqual(expected.cache, ApplianceConfig.Cache(dir: "/var/cache/playola", size: 64 << 20))
        XCTAssertEqual(expected.playola.api, "https://admin-api.playola.fm")
        XCTAssertNil(expected.playola.token())
        XCTAssertEqual(expected.gpio, GPIOConfig(chip: nil, buttons: [], encoder: nil, encoderSwitch: nil,
                                                 encoderAction: .volume, debounceMs: 30, longPressMs: 1000, activeLow: true))
        XCTAssertEqual(expected.log.level, .info)
        XCTAssertEqual(config?.firstBootStation?.name, "demo")
    }

    func testRateIsAutoUnlessForced() throws {
        let (unset, _) = try load("[player]\nvolume = 50\n" + demo)
        XCTAssertNil(unset?.player.rate, "auto is the default")
        let (auto, autoLines) = try load("[player]\nrate = auto\n" + demo)
        XCTAssertEqual(autoLines, [])
        XCTAssertNotNil(auto)
        XCTAssertNil(auto?.player.rate)
        let (forced, _) = try load("[player]\nrate = 48000\n" + demo)
        XCTAssertEqual(forced?.player.rate, 48000)
        let (_, badLines) = try load("[player]\nrate = Auto\n" + demo)
        XCTAssertEqual(badLines, ["FILE:2: error: rate must be auto, 48000 or 44100, not 'Auto'"])
    }

    func testValuesAreRead() throws {
        let text = """
            [player]
              station = kexp
              device = hw:CARD=Audio,DEV=0
              volume = 35   ; indented lines are keys, not continuations
            rate = 44100
            [cache]
            size = 512k0
            [station kexp]
            type = stream
            url = https://example.org/stream.mp3
            header = Icy-MetaData: 1
            header = User-Agent: playola
            [gpio]
            chip = gpiochip4
            stop = 27
            active_low = false
            debounce_ms = 5
            """
        let (bad, badLines) = try load(text)
        XCTAssertNil(bad)
        XCTAssertEqual(badLines, ["FILE:7: error: size must be a number of bytes with an optional k, M or G suffix, like 64M, not '512k0'"])
        let (config, lines) = try load(text.replacingOccurrences(of: "512k0", with: "1G"))
        XCTAssertEqual(lines, [])
        XCTAssertEqual(config?.player, ApplianceConfig.Player(station: "kexp", device: "hw:CARD=Audio,DEV=0", volume: 35, rate: 44100))
        XCTAssertEqual(config?.cache.size, 1 << 30)
        XCTAssertEqual(config?.stations, [StationConfig(
            name: "kexp", kind: .stream(url: "https://example.org/stream.mp3", headers: ["Icy-MetaData: 1", "User-Agent: playola"]),
            line: 8)])
        XCTAssertEqual(config?.gpio.buttons, [GPIOConfig.Button(action: .stop, lineRef: .offset(27), line: 15)])
        XCTAssertEqual(config?.gpio.activeLow, false)
        XCTAssertEqual(config?.gpio.debounceMs, 5)
    }

    func testINIFileKeepsLinesAndEmptySections() throws {
        let file = try INIFile.parse(text: "\u{FEFF}[empty]\r\n; comment\r\n[ player ]\r\n  volume = 80 ; loud\r\n\tdevice=x\r\n")
        XCTAssertEqual(file.sections, [INISection(name: "empty", line: 1), INISection(name: "player", line: 3)])
        XCTAssertEqual(file.entries, [
            INIEntry(section: "player", key: "volume", value: "80", line: 4, sectionLine: 3),
            INIEntry(section: "player", key: "device", value: "x", line: 5, sectionLine: 3),
        ])
        XCTAssertThrowsError(try INIFile.parse(text: "[a]\nk = v\nnot a pair\n[b\n")) { error in
            XCTAssertEqual(error as? ConfigError, .syntax(line: 3))
        }
    }

    func testTimeshift() {
        XCTAssertEqual(ConfigValue.timeshift("-90s"), -90)
        XCTAssertEqual(ConfigValue.timeshift("-15m"), -900)
        XCTAssertEqual(ConfigValue.timeshift("-3h"), -10800)
        for bad in ["3h", "+3h", "-3d", "-h", "-1.5h", "- 3h", "yesterday", ""] {
            XCTAssertNil(ConfigValue.timeshift(bad), bad)
        }
    }

    func testLineRefs() {
        XCTAssertEqual(LineRef(parsing: "GPIO17"), .name("GPIO17"))
        XCTAssertEqual(LineRef(parsing: "P9_12"), .name("P9_12"))
        XCTAssertEqual(LineRef(parsing: "17"), .offset(17))
        for bad in ["banana", "+17", "-1", "GPIO 17", ""] { XCTAssertNil(LineRef(parsing: bad), bad) }
    }

    func testTokenIsReadAgainOnEveryCall() throws {
        let path = try write("first\n", name: "token")
        let playola = ApplianceConfig.Playola(tokenSource: .file(path))
        XCTAssertEqual(playola.token(), "first")
        try write("  second \n", name: "token")
        XCTAssertEqual(playola.token(), "second")
        try write("\n", name: "token")
        XCTAssertNil(playola.token())
        try FileManager.default.removeItem(atPath: path)
        XCTAssertNil(playola.token())
    }

    func testDidYouMean() {
        XCTAssertEqual(DidYouMean.closest(to: "volmue", in: ConfigValidator.playerKeys), "volume")
        XCTAssertEqual(DidYouMean.closest(to: "Volume", in: ConfigValidator.playerKeys), "volume")
        XCTAssertNil(DidYouMean.closest(to: "loudness", in: ConfigValidator.playerKeys))
    }

    func testNetworkSection() throws {
        let secret = "correct horse;battery"
        let good = "[network]\nwifi_ssid = Porch \"5G\"\nwifi_psk = \(secret)\nwifi_country = gb\nwifi_hidden = yes\n" + demo
        XCTAssertEqual(try load(good).lines, [])
        XCTAssertEqual(try load("[network]\n" + demo).lines, [], "Ethernet only")
        XCTAssertEqual(try load("[network]\nwifi_ssid = Porch\nwifi_country = DE\n" + demo).lines, [], "an open network")
        XCTAssertEqual(try load("[network]\nwifi_ssid = Porch\nwifi_psk = \(String(repeating: "aB", count: 32))\nwifi_country = DE\n" + demo).lines,
                       [], "a 64-hex-digit key")
        let cases: [(String, [String])] = [
            ("[network]\nwifi_ssid = Porch\nwifi_psk = short\nwifi_country = US\n",
             ["FILE:3: error: wifi_psk must be 8 to 63 printable ASCII characters or 64 hex digits "
              + "(this one has 5 characters; leave it out for an open network)"]),
            ("[network]\nwifi_ssid = Porch\nwifi_psk = caf\u{E9} au lait\nwifi_country = US\n",
             ["FILE:3: error: wifi_psk must be 8 to 63 printable ASCII characters or 64 hex digits "
              + "(this one has 12 characters; leave it out for an open network)"]),
            ("[network]\nwifi_ssid = \(String(repeating: "x", count: 33))\nwifi_country = US\n",
             ["FILE:2: error: wifi_ssid must be 1 to 32 bytes, not 33 (leave the key out for no Wi-Fi)"]),
            ("[network]\nwifi_ssid = Porch\nwifi_country = Britain\n",
             ["FILE:3: error: wifi_country must be a two-letter country code such as GB, US or DE, not 'Britain'"]),
            ("[network]\nwifi_ssid = Porch\nwifi_hidden = maybe\nwifi_country = US\n",
             ["FILE:3: error: wifi_hidden must be true or false, not 'maybe'"]),
            ("[network]\nwifi_psk = \(secret)\n", ["FILE:2: error: wifi_psk needs wifi_ssid"]),
            ("[network]\nwifi_ssid = Porch\n",
             ["FILE:2: warning: no wifi_country: the radio keeps to the channels allowed everywhere and may miss the network"]),
            ("[network]\nwifi_pass = \(secret)\n", ["FILE:2: warning: unknown key 'wifi_pass' in [network]; did you mean 'wifi_psk'?"]),
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = \(secret)\nwifi_psk = \(secret)\n",
             ["FILE:5: error: duplicate key 'wifi_psk' in [network] (first at line 4)"]),
        ]
        for (text, expected) in cases {
            let (config, lines) = try load(text + demo)
            XCTAssertEqual(lines, expected, text)
            XCTAssertEqual(config == nil, expected.contains { $0.contains(": error: ") }, text)
            // The passphrase (or the part of it before an inline comment) is never printed.
            XCTAssertFalse(lines.contains { $0.contains("correct horse") || $0.contains("lait") }, text)
        }
    }

    func testCheckConfigExitStatus() throws {
        XCTAssertEqual(CheckConfigCommand.run([try write(demo)]), 0)
        XCTAssertEqual(CheckConfigCommand.run([try write("[player]\nvolume = 80\n")]), 1)
        XCTAssertEqual(CheckConfigCommand.run(["a", "b"]), 2)
    }
}
