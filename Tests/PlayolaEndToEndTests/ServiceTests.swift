import Foundation
import XCTest
import PlayolaTestSupport

/// Issue 4, "must be shown" 2 and 3: the service, started with a test config, plays local stations into
/// alsa-lib's `file` plugin behind a pipe to `pv`, which paces it at real time (48 kHz S16 stereo); the
/// clients change what is written; SIGHUP, SIGTERM and a restart behave; sd_notify says READY, STATUS and
/// WATCHDOG — and no WATCHDOG while the output is stuck.
final class ServiceTests: XCTestCase {
    static let bytesPerSecond = 48000 * 4

    final class Service {
        let folder: String
        let capture: String
        let config: String
        var process: Process?
        let notify: NotifyListener?

        init(notify: Bool = false) throws {
            let folder = NSTemporaryDirectory() + "playola-service-\(UUID().uuidString.prefix(8))"
            self.folder = folder
            socket = folder + "/control.sock"
            capture = folder + "/capture.raw"
            config = folder + "/playola.ini"
            try FileManager.default.createDirectory(atPath: folder + "/low", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: folder + "/high", withIntermediateDirectories: true)
            self.notify = notify ? try NotifyListener(path: folder + "/notify.sock") : nil
            try Self.tone(400, into: folder + "/low/low.wav")
            try Self.tone(1000, into: folder + "/high/high.wav")
            try writeConfig(volume: 80)
            try """
            pcm.playola_test {
                type plug
                slave { pcm "playola_paced"; format S16_LE; rate 48000; channels 2 }
            }
            pcm.playola_paced {
                type file
                slave.pcm "null"
                file "|exec pv -q -B 9600 -L 192000 >> \(capture)"
                format "raw"
            }
            """.write(toFile: folder + "/asound.conf", atomically: true, encoding: .utf8)
        }

        var extraSections = ""
        /// More `playola run` arguments (e.g. `--for`).
        var extraArguments: [String] = []
        /// More environment for the service and its clients.
        var environment: [String: String] = [:]
        /// Where the service keeps its last good configuration (never the machine's own).
        var lastGood: String { folder + "/last-good.ini" }
        /// nil: `--config` names `config`; else the INI is searched for in these files (`PLAYOLA_CONFIG_SEARCH`).
        var search: [String]?
        /// The socket `start` waits for.
        var socket: String

        /// What the service and its clients are told about the INI.
        var configArguments: [String] { (search == nil ? ["--config", config] : []) + ["--last-good", lastGood] }

        var fullEnvironment: [String: String] {
            var all = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            all["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:" + folder + "/asound.conf"
            if let search { all["PLAYOLA_CONFIG_SEARCH"] = search.joined(separator: ":") }
            return all
        }
        /// Where the service's log (standard error) goes.
        var logPath = "/dev/null"

        /// `player`: more `[player]` lines.
        func writeConfig(volume: Int, player: String = "") throws {
            let stations = "[station low]\ntype = local\npath = \(folder)/low\n\n[station high]\ntype = local\npath = \(folder)/high\n"
            try Self.ini(folder: folder, player: "station = low\ndevice = playola_test\nvolume = \(volume)\n\(player)",
                         stations: stations + extraSections).write(toFile: config, atomically: true, encoding: .utf8)
        }

        /// A test INI: `player`'s lines, the service's socket and state and a 16M cache in `folder`, `stations`.
        static func ini(folder: String, player: String, stations: String) -> String {
            """
            [player]
            \(player)

            [service]
            socket = \(folder)/control.sock
            state_dir = \(folder)/state

            [cache]
            dir = \(folder)/cache
            size = 16M

            \(stations)
            """
        }

        static func tone(_ frequency: Int, into path: String) throws {
            try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*\(frequency)*t)|0.5*sin(2*PI*\(frequency)*t):s=48000:d=90", path])
        }

        func start() throws {
            try? FileManager.default.removeItem(atPath: socket)
            let process = Process()
            process.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
            process.arguments = ["run"] + configArguments + extraArguments
            var environment = fullEnvironment
            if let notify {
                environment["NOTIFY_SOCKET"] = notify.path
                environment["WATCHDOG_USEC"] = "1000000"
            }
            process.environment = environment
            if logPath != "/dev/null" { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
            process.standardError = FileHandle(forWritingAtPath: logPath)
            try process.run()
            self.process = process
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(50_000) }
        }

        /// Runs a client command; returns its output.
        @discardableResult
        func client(_ words: String...) throws -> String {
            let process = Process()
            process.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
            process.arguments = words + configArguments
            process.environment = fullEnvironment
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }

        func status() throws -> [String: Any] {
            (try JSONSerialization.jsonObject(with: Data(try client("status", "--json").utf8)) as? [String: Any]) ?? [:]
        }

        /// The last `seconds` of what reached the "device", left channel.
        func recent(_ seconds: Double) -> [Float] {
            guard let data = FileManager.default.contents(atPath: capture) else { return [] }
            let frames = data.count / 4
            let wanted = min(frames, Int(seconds * 48000))
            return data.withUnsafeBytes { raw in
                let samples = raw.bindMemory(to: Int16.self)
                return (frames - wanted..<frames).map { Float(samples[$0 * 2]) / 32767 }
            }
        }

        var captureSeconds: Double {
            Double((try? FileManager.default.attributesOfItem(atPath: capture)[.size] as? Int) ?? 0) / Double(ServiceTests.bytesPerSecond)
        }

        func amplitude(_ frequency: Double, lastSeconds: Double = 0.3) -> Double {
            let samples = recent(lastSeconds)
            guard samples.count > 480 else { return 0 }
            var best = 0.0
            // The tone's level over the newest 10 ms windows (the fixtures are steady tones).
            for start in stride(from: samples.count - 480 * 5, to: samples.count - 480, by: 480) where start >= 0 {
                best = max(best, amplitudeOf(frequency, samples, start))
            }
            return best
        }

        /// A folder station loops its files from 2000-01-01 (`LocalFolderSource.epoch`), each overlapping the
        /// next by a 2 s crossfade: with one 90 s tone that is an 88 s cycle, whose first 2 s sum two copies of
        /// the tone (in phase: up to twice its level). Waits until the next `seconds` are clear of that, so a
        /// check of a level never lands on the crossfade (1 s either side covers the device's buffer).
        func clearOfTheLoopsCrossfade(for seconds: Double, fileSeconds: Double = 90) {
            let cycle = fileSeconds - 2, crossfadeEnd = 2.0 + 1, margin = 1.0
            let position = (Date().timeIntervalSince1970 - 946_684_800).truncatingRemainder(dividingBy: cycle)
            if position < crossfadeEnd {
                usleep(UInt32((crossfadeEnd - position) * 1e6))
            } else if position + seconds > cycle - margin {
                usleep(UInt32((cycle - position + crossfadeEnd) * 1e6))
            }
        }

        /// Playing, with its device counted as open (once it played 0.1 s, a moment after the state says playing):
        /// from here on, a change is one a test made.
        func waitUntilSteady(_ test: XCTestCase) throws {
            try test.waitUntil("playing on an open device") {
                let status = try? self.status()
                return status?["state"] as? String == "playing" && status?["deviceAvailable"] as? Bool == true
            }
        }

        func stopProcess() {
            process?.terminate()
            process?.waitUntilExit()
        }

        deinit {
            if process?.isRunning == true { process?.terminate() }
        }
    }

    func testTheServicePlaysObeysItsClientsAndResumesAfterARestart() throws {
        let service = try Service()
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the service plays the default station") { service.amplitude(400) > 0.05 }
        XCTAssertEqual(try service.status()["station"] as? String, "low")
        XCTAssertEqual(try service.status()["state"] as? String, "playing")

        XCTAssertEqual(try service.client("next", "--json").trimmingCharacters(in: .whitespacesAndNewlines), #"{"ok":true}"#)
        try waitUntil("next station") { service.amplitude(1000) > 0.05 && service.amplitude(400) < 0.005 }
        XCTAssertEqual(try service.status()["station"] as? String, "high")

        try service.client("stop")
        try waitUntil("stop silences the output") { service.amplitude(1000) < 0.001 }
        XCTAssertEqual(try service.status()["state"] as? String, "idle")
        let before = service.captureSeconds
        usleep(500_000)
        XCTAssertGreaterThan(service.captureSeconds - before, 0.3, "the PCM keeps running (on silence) while stopped")

        service.clearOfTheLoopsCrossfade(for: 14) // the levels checked from here to the SIGHUP's
        try service.client("play")
        try waitUntil("play resumes the station") { service.amplitude(1000) > 0.05 }

        // SIGHUP with a new volume: the level changes, with no gap.
        usleep(1_600_000) // so the stretch examined below is all playback
        // The tone is 0.5 at full scale; volume 80 is -12 dB on the 60 dB curve, 50 is -30 dB.
        XCTAssertEqual(service.amplitude(1000), 0.5 * 0.2512, accuracy: 0.02)
        try service.writeConfig(volume: 50)
        kill(service.process!.processIdentifier, SIGHUP)
        try waitUntil("the new volume applies") { abs(service.amplitude(1000) - 0.5 * 0.0316) < 0.004 }
        let around = service.recent(1.5)
        let quietest = stride(from: 0, to: around.count - 480, by: 480).map { amplitudeOf(1000, around, $0) }.min() ?? 0
        XCTAssertGreaterThan(quietest, 0.01, "no gap when the volume changed")

        // SIGTERM ends within a second, and a restart resumes the last station.
        let began = Date()
        service.stopProcess()
        XCTAssertLessThan(Date().timeIntervalSince(began), 1.0)
        XCTAssertEqual(service.process?.terminationStatus, 0)
        let stoppedAt = service.captureSeconds
        try service.start()
        try waitUntil("the restart resumes the last station") { service.captureSeconds > stoppedAt + 0.5 && service.amplitude(1000) > 0.01 }
        XCTAssertEqual(try service.status()["station"] as? String, "high")
    }

    /// The service's half of `playola-report.txt` (PLAYOLA_REPORT): once it plays, the report says so, with
    /// what runs and its log lines, readable by its group (the image's root helper), by no one else.
    func testTheServiceWritesItsReportForTheCardOnceItPlays() throws {
        let service = try Service()
        let path = service.folder + "/report.txt"
        service.environment["PLAYOLA_REPORT"] = path
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the report is written", timeout: 30) { FileManager.default.fileExists(atPath: path) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("Playola Appliance: what this box is doing\n"), text)
        XCTAssertTrue(text.contains("\nState:   playing"), text)
        XCTAssertTrue(text.contains("\nStation: low (local folder)"), text)
        XCTAssertTrue(text.contains("\nSystem:  playola "), text)
        // Its start line is logged before the report is first written; what follows may come after.
        XCTAssertTrue(text.contains(": output playola_test; control socket "), "its log lines: \(text)")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o640)
    }

    func testSdNotifyReadyStatusAndAWatchdogFedOnlyWhileAudioAdvances() throws {
        let service = try Service(notify: true)
        try service.start()
        defer { service.stopProcess() }
        let notify = service.notify!
        try waitUntil("READY") { notify.messages.contains { $0.hasPrefix("READY=1") } }
        XCTAssertTrue(notify.messages.contains { $0.contains("STATUS=") })
        try waitUntil("WATCHDOG while playing") { notify.messages.contains("WATCHDOG=1") }
        // The output gets stuck: the pacing reader stops reading, so writes block and frames stop advancing.
        // Only this service's pacing reader (alsa-lib execs it as the service's child): other tests' pv run beside it.
        let servicePID = String(service.process!.processIdentifier)
        try runTool("pkill", ["-STOP", "-P", servicePID, "-x", "pv"])
        usleep(2_200_000) // the gate's tolerance (2 s), and a little
        let stuckFrom = notify.messages.count
        usleep(2_000_000)
        XCTAssertFalse(notify.messages.dropFirst(stuckFrom).contains("WATCHDOG=1"), "no WATCHDOG while output is stuck")
        try runTool("pkill", ["-CONT", "-P", servicePID, "-x", "pv"])
        let resumedFrom = notify.messages.count
        try waitUntil("WATCHDOG again once audio advances") { notify.messages.dropFirst(resumedFrom).contains("WATCHDOG=1") }
    }

    func testTheServiceRefusesToStartOnAnErrorAndStartsOnAWarning() throws {
        let service = try Service()
        let good = try String(contentsOfFile: service.config, encoding: .utf8)
        try good.replacingOccurrences(of: "volume = 80", with: "volume = loud").write(toFile: service.config, atomically: true, encoding: .utf8)
        let refused = Process()
        refused.executableURL = Bundle.main.bundleURL.appendingPathComponent("playola")
        refused.arguments = ["run", "--config", service.config, "--last-good", service.lastGood]
        let errors = Pipe()
        refused.standardError = errors
        try refused.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        refused.waitUntilExit()
        // 78: the unit's RestartPreventExitStatus, so the same fault is not met again at every restart.
        XCTAssertEqual(refused.terminationStatus, 78)
        XCTAssertTrue(said.contains("\(service.config):4: error: volume must be a whole number from 0 to 100, not 'loud'"), said)
        XCTAssertTrue(said.contains("there is no last good configuration (\(service.lastGood)): not starting"), said)

        try good.replacingOccurrences(of: "volume = 80", with: "volume = 80\nvolum = 3").write(toFile: service.config, atomically: true, encoding: .utf8)
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("a warning does not stop it") { service.amplitude(400) > 0.05 }
    }

    /// Issue 5, "must be shown" 2: each button action, fired from the fake line source (a pipe) at the running
    /// service, changes what is written to the device.
    func testButtonsFromTheFakeLineSourceDriveTheRunningService() throws {
        let service = try Service()
        let fifo = service.folder + "/gpio.fifo"
        service.extraSections = """
            [gpio]
            chip = fake:\(fifo)
            next_station = GPIO17
            stop = GPIO27
            interrupt = GPIO22
            volume_up = GPIO5
            volume_down = GPIO6
            station low = GPIO19
            """
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("the fake line source is open") { FileManager.default.fileExists(atPath: fifo) }
        let pipe = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        // Wired to ground with pull-ups (active low): pressed is 0. Held 100 ms, past the 30 ms debounce.
        func press(_ line: String) {
            pipe.write(Data("\(line) 0\n".utf8))
            usleep(100_000)
            pipe.write(Data("\(line) 1\n".utf8))
        }
        for line in ["GPIO17", "GPIO27", "GPIO22", "GPIO5", "GPIO6", "GPIO19"] { pipe.write(Data("\(line) 1\n".utf8)) }
        try waitUntil("playing the first station") { service.amplitude(400) > 0.05 }

        press("GPIO17")
        try waitUntil("next station") { service.amplitude(1000) > 0.05 && service.amplitude(400) < 0.005 }
        press("GPIO19")
        try waitUntil("station low by its own button") { service.amplitude(400) > 0.05 && service.amplitude(1000) < 0.005 }
        press("GPIO27")
        try waitUntil("stop") { service.amplitude(400) < 0.001 }
        press("GPIO27")
        try waitUntil("stop again plays") { service.amplitude(400) > 0.05 }
        press("GPIO22")
        try waitUntil("interrupt pauses") { service.amplitude(400) < 0.001 }
        XCTAssertEqual(try service.status()["state"] as? String, "paused")
        press("GPIO22")
        try waitUntil("interrupt again resumes") { service.amplitude(400) > 0.05 }
        XCTAssertEqual(try service.status()["state"] as? String, "playing")

        usleep(1_000_000)
        let before = service.amplitude(400)
        press("GPIO6")
        try waitUntil("volume down") { service.amplitude(400) < before * 0.95 }
        XCTAssertEqual(try service.status()["volume"] as? Int, 75)
        usleep(500_000)
        let samples = service.recent(1.2)
        var largest: Float = 0
        for n in 3..<samples.count {
            let d3: Float = samples[n] - 3 * samples[n - 1] + 3 * samples[n - 2] - samples[n - 3]
            largest = max(largest, abs(d3))
        }
        // A 400 Hz tone at this level keeps third differences near 0.0003; a click would be far above.
        XCTAssertLessThan(largest, 0.01, "the volume step ramps: no click")
        press("GPIO5")
        try waitUntil("volume up") { (try? service.status()["volume"] as? Int) == 80 }
    }

    /// Issue 30, item 4: a GPIO chip that cannot be had when the service starts (here the fake source's folder
    /// is not there yet, as a chip node or its group can come late from udev) is waited for: `status` says so,
    /// and 10 s later, when it can be had, the buttons work within 2 s, without a restart.
    func testButtonsWhoseChipComesLateWorkWithoutARestart() throws {
        let service = try Service()
        let late = service.folder + "/late", fifo = late + "/gpio.fifo"
        service.logPath = service.folder + "/service.log"
        service.extraSections = "[gpio]\nchip = fake:\(fifo)\nstop = GPIO27\n"
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        try waitUntil("playing without its buttons") { service.amplitude(400) > 0.05 }
        let waiting = try service.status()["buttons"] as? String
        XCTAssertTrue(waiting?.hasPrefix("waiting: cannot open the fake GPIO pipe \(fifo): No such file or directory") ?? false,
                      waiting ?? "no buttons field in status")
        let text = try service.client("status")
        XCTAssertNotNil(text.range(of: #"\nButtons: +waiting: cannot open the fake GPIO pipe"#, options: .regularExpression), text)

        usleep(10_000_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fifo), "nothing was taken while the chip could not be had")
        try FileManager.default.createDirectory(atPath: late, withIntermediateDirectories: false)
        let accessible = Date()
        try waitUntil("the lines are taken", timeout: 2) { FileManager.default.fileExists(atPath: fifo) }
        let taken = Date().timeIntervalSince(accessible)
        let pipe = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        pipe.write(Data("GPIO27 1\n".utf8))
        pipe.write(Data("GPIO27 0\n".utf8))
        usleep(100_000)
        pipe.write(Data("GPIO27 1\n".utf8))
        try waitUntil("the stop button stops") { service.amplitude(400) < 0.001 }
        XCTAssertLessThan(taken, 2, "the buttons were taken \(taken) s after their chip could be had")
        XCTAssertNil(try service.status()["buttons"], "status no longer says the buttons wait")
        let log = try String(contentsOfFile: service.logPath, encoding: .utf8)
        XCTAssertEqual(log.components(separatedBy: "cannot open the fake GPIO pipe").count - 1, 1,
                       "the wait is logged once, not at each attempt: \(log)")
        XCTAssertTrue(log.contains("GPIO: the buttons work now, after waiting "), log)
    }

    /// Issue 7: a `type = stream` station in the INI plays, with its INI header sent, and `playola status`
    /// shows the ICY titles as they change.
    func testAStreamStationPlaysAndItsTitlesShowInStatus() throws {
        let service = try Service()
        let mp3 = service.folder + "/radio.mp3"
        try runTool("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*700*t)|0.5*sin(2*PI*700*t):s=44100:d=40",
                               "-c:a", "libmp3lame", "-b:a", "128k", mp3])
        let server = try StreamServerProcess(["--mount", "/radio.mp3=\(mp3):audio/mpeg:16000",
                                              "--titles", "The Band - A Tune|Other Band - Another Song", "--title-seconds", "1.5"])
        defer { withExtendedLifetime(server) {} }
        let port = server.port
        service.extraSections = """
            [station radio]
            type = stream
            url = http://127.0.0.1:\(port)/radio.mp3
            header = X-Playola-Test: yes
            """
        try service.writeConfig(volume: 80)
        try service.start()
        defer { service.stopProcess() }
        try service.client("play", "radio")
        try waitUntil("the stream plays", timeout: 8) { service.amplitude(700) > 0.05 && service.amplitude(400) < 0.005 }
        var titles: [String] = []
        try waitUntil("both titles show in status", timeout: 8) {
            let status = try service.status()
            if let title = (status["spin"] as? [String: Any])?["title"] as? String, titles.last != title { titles.append(title) }
            return Set(titles) == ["A Tune", "Another Song"]
        }
        let status = try service.status()
        XCTAssertEqual(status["state"] as? String, "playing")
        XCTAssertEqual(status["station"] as? String, "radio")
        let stream = try XCTUnwrap(status["stream"] as? [String: Any])
        XCTAssertEqual(stream["name"] as? String, "Playola Test Stream")
        XCTAssertEqual(stream["format"] as? String, "mp3")
        XCTAssertTrue((stream["title"] as? String)?.contains(" - ") ?? false)
        // Issue 16: the buffer the drift loop holds, about the 2 s start buffer (still settling: no correction yet).
        let buffered = try XCTUnwrap(stream["bufferSeconds"] as? Double)
        XCTAssertGreaterThan(buffered, 1)
        XCTAssertLessThan(buffered, 7)
        XCTAssertNil(stream["clockPPM"])
        // Issue 17: the same for people.
        let human = try PlayolaRun(["status"] + service.configArguments, environment: service.fullEnvironment).out
        XCTAssertTrue(human.contains("Station: radio (internet radio, Playola Test Stream, mp3"), human)
        XCTAssertTrue(human.contains("Playing: The Band – A Tune  0:") || human.contains("Playing: Other Band – Another Song  0:"), human)
        // The request carried the INI's header and asked for ICY metadata.
        let requests = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(string: "http://127.0.0.1:\(port)/_requests")!)) as? [[String: Any]]
        let headers = try XCTUnwrap(requests?.first?["headers"] as? [String: Any])
        XCTAssertEqual(headers["x-playola-test"] as? String, "yes")
        XCTAssertEqual(headers["icy-metadata"] as? String, "1")
    }

}

extension XCTestCase {
    func waitUntil(_ what: String, timeout: Double = 6, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)
        }
        XCTFail("timed out waiting: \(what)")
    }
}

/// A datagram socket standing in for systemd's notify socket.
final class NotifyListener: @unchecked Sendable {
    // @unchecked Sendable: `received` is guarded by `lock`; the reader thread only appends.
    let path: String
    private let fd: Int32
    private let lock = NSLock()
    private var received: [String] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in path.utf8.enumerated() { raw[index] = byte } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw NSError(domain: "notify", code: Int(errno)) }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard got > 0 else { return }
                let text = String(decoding: buffer[0..<got], as: UTF8.self)
                lock.withLock { received.append(text) }
            }
        }
    }

    var messages: [String] { lock.withLock { received } }
}

func amplitudeOf(_ frequency: Double, _ samples: [Float], _ start: Int, length: Int = 480) -> Double {
    var re = 0.0
    var im = 0.0
    let omega = 2 * Double.pi * frequency / 48000
    for n in 0..<length where start + n < samples.count {
        re += Double(samples[start + n]) * cos(omega * Double(n))
        im -= Double(samples[start + n]) * sin(omega * Double(n))
    }
    return 2 * (re * re + im * im).squareRoot() / Double(length)
}

