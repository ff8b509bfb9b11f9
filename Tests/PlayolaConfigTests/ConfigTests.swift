import Foundation
@testable import PlayolaApplianceSupport
@testable import PlayolaConfig
import XCTest

final class ConfigTests: XCTestCase {
    private var scratch: ConfigScratch!
    private var directory: String { scratch.directory }

    override func setUpWithError() throws { scratch = try ConfigScratch("config-tests") }
    // Removes its folder: XCTest keeps each test case for the whole run.
    override func tearDown() { scratch = nil }

    /// A station, so cases are about one mistake and not also about "no station is configured".
    private let demo = "[station demo]\ntype = local\npath = /tmp\n"

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
        XCTAssertNil(sample.playola.tokenSource, "the sample gives no token: an owner puts in one, one way")
        XCTAssertEqual(sample.gpio.buttons.map(\.action),
                       [.nextStation, .previousStation, .stop, .interrupt, .volumeUp, .volumeDown, .shutdown, .station("porch")])
        XCTAssertEqual(sample.gpio.buttons.first?.lineRef, .name("GPIO17"))
        let encoderLine = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
            .firstIndex { $0.hasPrefix("encoder =") }.map { $0 + 1 }
        XCTAssertEqual(sample.gpio.encoder, GPIOConfig.Encoder(a: .name("GPIO12"), b: .name("GPIO25"), line: try XCTUnwrap(encoderLine)))
        XCTAssertEqual(sample.player.idleClose, 600)
        XCTAssertEqual(sample.player.clockHold, .stuff)
        XCTAssertEqual(sample.led, ApplianceConfig.LED(status: .name("GPIO23"), network: .name("GPIO24")))
    }

    func testEachMistakeGivesItsExactDiagnostic() throws {
        let syntax = "syntax error: a line must be 'key = value', '[section]' or '; comment'"
        let porch = "[station porch]\ntype = playola\nid = 9d79fd38\n"
        let cases: [(String, [String])] = [
            ("[player]\nvolume 80\n" + demo, ["FILE:2: error: \(syntax)"]),
            ("[player\nvolume = 80\n" + demo, ["FILE:1: error: \(syntax)"]),
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
            ("[player]\nclock_hold = bend\n" + demo, ["FILE:2: error: clock_hold must be stuff or resample, not 'bend'"]),
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
            ("[station demo]\npath = /tmp\n", ["FILE:1: error: station 'demo' needs a type: playola, stream or local"]),
            ("[station porch]\ntype = playola\nid = x\ntimeshift = yesterday\n",
             ["FILE:4: error: timeshift must look like -3h, -15m or -90s, at most 30d back, not 'yesterday'"]),
            ("[station demo]\ntype = local\npth = /tmp\npath = /tmp\n",
             ["FILE:3: warning: unknown key 'pth' in [station demo]; did you mean 'path'?"]),
            ("[station demo]\ntype = local\npath = /tmp\nurl = http://x\n",
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
            let (config, lines) = try scratch.load(text)
            XCTAssertEqual(lines, expected, text)
            let hasError = expected.contains { $0.contains(": error: ") }
            XCTAssertEqual(config == nil, hasError, "errors and only errors block: \(text)")
        }
    }

    func testWorldReadableTokenIsAWarning() throws {
        let token = try scratch.write("secret\n", name: "token", mode: 0o644)
        let (config, lines) = try scratch.load("[playola]\ntoken_file = \(token)\n" + demo)
        XCTAssertEqual(lines, ["FILE:2: warning: token file \(token) is readable by everyone; chmod 600 it"])
        XCTAssertEqual(config?.playola.token(), "secret")

        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        XCTAssertEqual(try scratch.load("[playola]\ntoken_file = \(token)\n" + demo).lines, [])

        let inline = try scratch.load("[playola]\ntoken = secret\n" + demo, mode: 0o644)
        XCTAssertEqual(inline.lines, ["FILE:2: warning: config file FILE holds a token and is readable by everyone; chmod 600 it"])
        XCTAssertEqual(inline.config?.playola.token(), "secret")
        XCTAssertEqual(try scratch.load("[playola]\ntoken = secret\n" + demo, mode: 0o600).lines, [])

        XCTAssertEqual(try scratch.load("[playola]\ntoken = a\ntoken_file = \(token)\n" + demo).lines,
                       ["FILE:3: error: give token or token_file, not both"])
    }

    func testMissingFile() {
        let path = directory + "/absent.ini"
        let (config, diagnostics) = ApplianceConfig.load(path: path)
        XCTAssertNil(config)
        XCTAssertEqual(diagnostics.map(\.description), ["\(path):0: error: cannot read: No such file or directory"])
    }

    func testDefaults() throws {
        let (config, lines) = try scratch.load(demo)
        XCTAssertEqual(lines, [])
        var expected = ApplianceConfig()
        expected.stations = [StationConfig(name: "demo", kind: .local(path: "/tmp"), line: 1)]
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
        let (unset, _) = try scratch.load("[player]\nvolume = 50\n" + demo)
        XCTAssertNil(unset?.player.rate, "auto is the default")
        let (auto, autoLines) = try scratch.load("[player]\nrate = auto\n" + demo)
        XCTAssertEqual(autoLines, [])
        XCTAssertNotNil(auto)
        XCTAssertNil(auto?.player.rate)
        let (forced, _) = try scratch.load("[player]\nrate = 48000\n" + demo)
        XCTAssertEqual(forced?.player.rate, 48000)
        let (_, badLines) = try scratch.load("[player]\nrate = Auto\n" + demo)
        XCTAssertEqual(badLines, ["FILE:2: error: rate must be auto, 48000 or 44100, not 'Auto'"])
    }

    func testClockHoldIsStuffUnlessResample() throws {
        XCTAssertEqual(try scratch.load(demo).config?.player.clockHold, .stuff, "stuff is the default")
        let (resample, lines) = try scratch.load("[player]\nclock_hold = resample\n" + demo)
        XCTAssertEqual(lines, [])
        XCTAssertEqual(resample?.player.clockHold, .resample)
        XCTAssertEqual(try scratch.load("[player]\nclock_hold = stuff\n" + demo).config?.player.clockHold, .stuff)
        let (bad, badLines) = try scratch.load("[player]\nvolume = 50\nclock_hold = Resample\n" + demo)
        XCTAssertNil(bad)
        XCTAssertEqual(badLines, ["FILE:3: error: clock_hold must be stuff or resample, not 'Resample'"])
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
        let (bad, badLines) = try scratch.load(text)
        XCTAssertNil(bad)
        XCTAssertEqual(badLines, ["FILE:7: error: size must be a number of bytes with an optional k, M or G suffix, like 64M, not '512k0'"])
        let (config, lines) = try scratch.load(text.replacingOccurrences(of: "512k0", with: "1G"))
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
            INIEntry(section: "player", key: "volume", value: "80", uncutValue: "80 ; loud", line: 4, sectionLine: 3),
            INIEntry(section: "player", key: "device", value: "x", uncutValue: "x", line: 5, sectionLine: 3),
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
        let path = try scratch.write("first\n", name: "token")
        let playola = ApplianceConfig.Playola(tokenSource: .file(path))
        XCTAssertEqual(playola.token(), "first")
        try scratch.write("  second \n", name: "token")
        XCTAssertEqual(playola.token(), "second")
        try scratch.write("\n", name: "token")
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
        let rule = "a passphrase is 8 to 63 printable ASCII characters, or give the 64-hex-digit key"
        let secret = "correct horse;battery"
        let good = "[network]\nwifi_ssid = Porch \"5G\"\nwifi_psk = \(secret)\nwifi_country = gb\nwifi_hidden = yes\n" + demo
        let (config, lines) = try scratch.load(good)
        XCTAssertEqual(lines, [])
        XCTAssertEqual(config?.network.wifi, .init(ssid: "Porch \"5G\"", security: .passphrase(secret), country: "GB", hidden: true))
        XCTAssertEqual(try scratch.load("[network]\n" + demo).config?.network.wifi, nil, "Ethernet only")
        XCTAssertEqual(try scratch.load("[network]\n" + demo).lines, [], "Ethernet only")
        XCTAssertEqual(try scratch.load("[network]\nwifi_ssid = Porch\nwifi_psk = \(String(repeating: "aB", count: 32))\nwifi_country = DE\n" + demo)
            .config?.network.wifi?.security, .key(String(repeating: "ab", count: 32)), "a key, lower-cased")
        XCTAssertEqual(try scratch.load("[network]\nwifi_ssid = Porch\nwifi_country = DE\n" + demo).lines, [], "an open network")
        XCTAssertEqual(try scratch.load("[network]\nwifi_ssid = Porch\nwifi_psk = \(String(repeating: "aB", count: 32))\nwifi_country = DE\n" + demo).lines,
                       [], "a 64-hex-digit key")
        let cases: [(String, [String])] = [
            ("[network]\nwifi_ssid = Porch\nwifi_psk = short\nwifi_country = US\n",
             ["FILE:3: error: wifi_psk has 5 characters: \(rule) (leave it out for an open network)"]),
            ("[network]\nwifi_ssid = Porch\nwifi_psk = caf\u{E9} au lait\nwifi_country = US\n",
             ["FILE:3: error: wifi_psk holds '\u{E9}' (character 4 of the passphrase), which is not printable ASCII: \(rule)"]),
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
            // Issue 25: what libinih would have cut, and what the board was handed without a word.
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = correct horse ;battery\n",
             ["FILE:4: error: wifi_psk stops at a blank and ';', which start a comment: the passphrase read would be its "
              + "first 13 characters; give the network's 64-hex-digit key instead (wpa_passphrase prints it)"]),
            ("[network]\nwifi_ssid = Porch\t; upstairs\nwifi_country = US\n",
             ["FILE:2: error: wifi_ssid stops at a blank and ';', which start a comment: the name read is 'Porch'; "
              + "a comment goes on a line of its own; a name with ' ;' in it cannot be written here"]),
            ("[network]\nwifi_ssid = \"Porch Wi-Fi\"\nwifi_country = US\n",
             ["FILE:2: warning: wifi_ssid is in double quotes: the network's name is what is inside them, 'Porch Wi-Fi', "
              + "as wpa_supplicant's files write it"]),
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = \"correct horse\"\n",
             ["FILE:4: warning: wifi_psk is in double quotes: the passphrase is the 13 characters inside them, as wpa_supplicant's files write it"]),
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = correct\thorse\n",
             ["FILE:4: error: wifi_psk holds a tab (character 8 of the passphrase), which is not printable ASCII: \(rule)"]),
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = \(String(repeating: "x", count: 64))\n",
             ["FILE:4: error: wifi_psk has 64 characters and is not 64 hex digits: \(rule) (leave it out for an open network)"]),
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = \(String(repeating: "a", count: 65))\n",
             ["FILE:4: error: wifi_psk has 65 characters: \(rule) (leave it out for an open network)"]),
            // Character.isHexDigit takes a fullwidth digit: 61 hex digits and U+FF10 are 64 bytes, and no key.
            ("[network]\nwifi_ssid = Porch\nwifi_country = US\nwifi_psk = \(String(repeating: "a", count: 61))\u{FF10}\n",
             ["FILE:4: error: wifi_psk holds '\u{FF10}' (character 62 of the passphrase), which is not printable ASCII: \(rule)"]),
            ("[network]\nwifi_ssid = \"\(String(repeating: "x", count: 33))\"\nwifi_country = US\n",
             ["FILE:2: warning: wifi_ssid is in double quotes: the network's name is what is inside them, "
              + "'\(String(repeating: "x", count: 33))', as wpa_supplicant's files write it",
              "FILE:2: error: wifi_ssid must be 1 to 32 bytes, not 33 (leave the key out for no Wi-Fi)"]),
        ]
        for (text, expected) in cases {
            let (config, lines) = try scratch.load(text + demo)
            XCTAssertEqual(lines, expected, text)
            XCTAssertEqual(config == nil, expected.contains { $0.contains(": error: ") }, text)
            // The passphrase (or the part of it before an inline comment) is never printed.
            XCTAssertFalse(lines.contains { $0.contains("correct") || $0.contains("lait") }, text)
        }
        let quoted = try scratch.load("[network]\nwifi_ssid = \"Porch Wi-Fi\"\nwifi_psk = \"correct horse\"\nwifi_country = us\n" + demo).config
        XCTAssertEqual(quoted?.network.wifi, .init(ssid: "Porch Wi-Fi", security: .passphrase("correct horse"), country: "US"))
    }

    /// Issue 25: libinih reads C strings, and stops a line at a NUL, takes a CR, VT or FF before ';' for a blank
    /// and a line that starts with one for the rest of the previous value: such bytes are errors where they are.
    func testWhatIsNotPlainUTF8TextIsSaidWithItsPlace() throws {
        let utf16 = "FILE:0: error: not UTF-8 text (it looks like UTF-16: save it as UTF-8)"
        let text = "[station demo]\ntype = local\npath = /tmp\n"
        let cases: [([UInt8], [String])] = [
            ([0xFF, 0xFE] + text.utf8.flatMap { [$0, 0] }, [utf16]),
            ([0xFE, 0xFF] + text.utf8.flatMap { [0, $0] }, [utf16]),
            (text.utf8.flatMap { [$0, 0] }, [utf16]),
            (Array("[player]\ndevice = caf".utf8) + [0xE9] + Array("\n".utf8) + Array(text.utf8),
             ["FILE:2: error: not UTF-8 text: character 13 is the byte 0xE9, which UTF-8 does not allow there (save the file as UTF-8)"]),
            (Array("[player]\ndevice = \u{E9}\u{E9}".utf8) + [0xED, 0xA0, 0x80] + Array(text.utf8),
             ["FILE:2: error: not UTF-8 text: character 12 is the byte 0xED, which UTF-8 does not allow there (save the file as UTF-8)"]),
            (Array("[player]\ndevice = a\0b\n".utf8) + Array(text.utf8),
             ["FILE:2: error: character 11 is a control character (NUL, 0x00): a value is printable text on one line"]),
            (Array("[player]\r\ndevice = a\rb\r\n\u{1B}[2J\n".utf8) + Array(text.utf8),
             ["FILE:2: error: character 11 is a control character (carriage return, 0x0D): a value is printable text on one line",
              "FILE:3: error: character 1 is a control character (escape, 0x1B): a value is printable text on one line"]),
            (Array("[player]\ndevice = default\n\u{0B}volume = 5\n".utf8) + Array(text.utf8),
             ["FILE:3: error: character 1 is a control character (vertical tab, 0x0B): a value is printable text on one line"]),
            (Array("[player]\ndevice = default\u{0C};x\u{7F}\n".utf8) + Array(text.utf8),
             ["FILE:2: error: character 17 is a control character (form feed, 0x0C): a value is printable text on one line"]),
            (Array("\u{FEFF}[player]\r\nvolume = 5 ; quiet\r\n".utf8) + Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8), []),
        ]
        for (bytes, expected) in cases {
            let path = directory + "/bytes.ini"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let (config, diagnostics) = ApplianceConfig.load(path: path)
            XCTAssertEqual(diagnostics.map { $0.description.replacingOccurrences(of: path, with: "FILE") }, expected, "\(bytes)")
            XCTAssertEqual(config == nil, !expected.isEmpty, "\(bytes)")
        }
    }

    func testMissingFolderAndATokenOverHTTPAreWarnings() throws {
        let (config, lines) = try scratch.load("[station demo]\ntype = local\npath = \(directory)/usb\n"
                                       + "[playola]\napi = http://192.0.2.1\ntoken = abc\n")
        XCTAssertEqual(lines, ["FILE:3: warning: station 'demo': folder \(directory)/usb does not exist: the station plays nothing until it does",
                               "FILE:5: warning: api is http://: the token travels unencrypted to http://192.0.2.1; use https://"])
        XCTAssertNotNil(config, "a USB stick may come later")
        XCTAssertEqual(try scratch.load("[station demo]\ntype = local\npath = \(try scratch.write("x", name: "file"))\n").lines,
                       ["FILE:3: warning: station 'demo': \(directory)/file is not a folder"])
        XCTAssertEqual(try scratch.load(demo + "[playola]\napi = http://192.0.2.1\n").lines, [], "no token, nothing to say")
    }

    /// Issue 26: 3,000 references to stations not configured made 3,000 errors, each listing every station.
    func testRepeatedMistakesAreCountedNotEachPrinted() throws {
        let stations = (0..<30).map { "[station s\($0)]\ntype = stream\nurl = http://127.0.0.1/\n" }.joined()
        let references = (0..<50).map { "station x\($0) = \($0)\n" }.joined()
        let diagnostics = ApplianceConfig.load(path: try scratch.write("[gpio]\nchip = gpiochip0\n" + references + "[player]\nstation = s1x\n" + stations)).diagnostics
        let shown = Diagnostic.bounded(diagnostics).map(\.description)
        XCTAssertEqual(shown.count, Diagnostic.shownPerKind + 1, shown.joined(separator: "\n"))
        XCTAssertEqual(shown.first, "\(directory)/playola.ini:3: error: station 'x0' is not configured; did you mean 's0'?")
        XCTAssertEqual(shown.last, "\(directory)/playola.ini:23: error: … and 31 more like it")
        XCTAssertEqual(diagnostics.last?.description, "\(directory)/playola.ini:54: error: station 's1x' is not configured; did you mean 's1'?")
        XCTAssertFalse(diagnostics.contains { $0.message.contains("stations are") }, "each names its nearest station, not a list")

        // 30 of one kind, 120 of another, then 150 all different (letters, as digits do not make a kind).
        var many: [Diagnostic] = (1...30).map { Diagnostic.warning("unknown key 'k\($0)' in [player]", file: "F", line: $0) }
        many += (31...150).map { Diagnostic.error("duplicate key 'k' in [player] (first at line \($0 - 1))", file: "F", line: $0) }
        for index in 0..<150 {
            let name = String(UnicodeScalar(UInt8(97 + index / 26))) + String(UnicodeScalar(UInt8(97 + index % 26)))
            many.append(.warning("unknown section [\(name)]", file: "F", line: 151 + index))
        }
        let bounded = Diagnostic.bounded(many).map(\.description)
        XCTAssertEqual(bounded.count, Diagnostic.shownInAll + 3, bounded.joined(separator: "\n"))
        XCTAssertEqual(bounded[20], "F:21: warning: … and 10 more like it")
        XCTAssertEqual(bounded[41], "F:51: error: … and 100 more like it")
        XCTAssertEqual(bounded[42], "F:151: warning: unknown section [aa]")
        XCTAssertEqual(bounded.last, "F:211: warning: … and 90 more")
        XCTAssertEqual(Diagnostic.grouped(2980), "2,980")
        XCTAssertEqual(Diagnostic.grouped(1_234_567), "1,234,567")
        XCTAssertEqual(Diagnostic.grouped(999), "999")
    }
}
