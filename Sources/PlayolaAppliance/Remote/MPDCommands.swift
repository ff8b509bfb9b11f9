import FoundationEssentials
import Glibc
import PlayolaControl
import PlayolaEngine

/// What each MPD command does, through the control socket's own requests (`ControlCommands.perform`): MPD's
/// words for the radio's commands, MPD's answers made from the radio's status. The commands are MPD's subset
/// its common clients use (mpc, ncmpcpp, M.A.L.P., MPDroid, Home Assistant); any other is MPD's "unknown
/// command". `idle`, `noidle` and the command lists are the connection's (`MPDSession`).
enum MPDCommands {
    /// A command's name, the arguments it takes and whether it needs the password (MPD's `PERMISSION_NONE`
    /// commands do not: `close`, `commands`, `notcommands`, `password`, `ping`).
    struct Spec: Sendable {
        var arguments: ClosedRange<Int>?
        var open = false
    }

    static let table: [String: Spec] = [
        "clear": Spec(arguments: 0...0),
        "close": Spec(arguments: nil, open: true),
        "commands": Spec(arguments: 0...0, open: true),
        "currentsong": Spec(arguments: 0...0),
        "getvol": Spec(arguments: 0...0),
        "idle": Spec(arguments: 0...MPDRequestLine.maximumArguments),
        "listplaylists": Spec(arguments: 0...0),
        "load": Spec(arguments: 1...1),
        "lsinfo": Spec(arguments: 0...1),
        "next": Spec(arguments: 0...0),
        "notcommands": Spec(arguments: 0...0, open: true),
        "outputs": Spec(arguments: 0...0),
        "password": Spec(arguments: 1...1, open: true),
        "pause": Spec(arguments: 0...1),
        "ping": Spec(arguments: 0...0, open: true),
        "play": Spec(arguments: 0...1),
        "playlistinfo": Spec(arguments: 0...1),
        "previous": Spec(arguments: 0...0),
        "setvol": Spec(arguments: 1...1),
        "status": Spec(arguments: 0...0),
        "tagtypes": Spec(arguments: 0...MPDRequestLine.maximumArguments, open: true),
        "stop": Spec(arguments: 0...0),
        "volume": Spec(arguments: 1...1),
    ]

    /// Everything a command needs beyond its words.
    struct Context: Sendable {
        let controller: ApplianceController
        let queue: MPDQueue
        let gate: PasswordGate
        /// nil: every client may do everything.
        let password: String?
        /// The client's address, as the gate counts it.
        let peer: String
    }

    /// A single command, or a command list's (`listOK`: `list_OK` after each).
    struct Batch: Sendable, Equatable {
        var lines: [[UInt8]]
        var listOK = false
    }

    struct Outcome: Sendable, Equatable {
        var text: String
        var state: MPDClientState
        var close = false
    }

    /// Runs `batch` in order and stops at the first failure, as MPD does; `OK` ends a batch that succeeded.
    static func run(_ batch: Batch, state: MPDClientState, context: Context) async -> Outcome {
        var outcome = Outcome(text: "", state: state)
        for (index, raw) in batch.lines.enumerated() {
            do throws(MPDError) {
                let line: MPDRequestLine
                do throws(MPDRequestLine.Failure) {
                    line = try MPDRequestLine(raw)
                } catch {
                    outcome.close = error.closes
                    throw error.error
                }
                if line.command == "close" {
                    outcome.close = true
                    return outcome
                }
                outcome.text += try await one(line, state: &outcome.state, context: context)
                if batch.listOK { outcome.text += "list_OK\n" }
            } catch {
                outcome.text += error.line(at: index)
                return outcome
            }
        }
        outcome.text += "OK\n"
        return outcome
    }

    /// Whether `line` may run: a known command, its password given, the right number of arguments (MPD's words).
    static func check(_ line: MPDRequestLine, authorized: Bool) throws(MPDError) {
        let name = line.command
        guard let spec = table[name] else { throw MPDError(.unknown, "", "unknown command \"\(name)\"") }
        guard spec.open || authorized else { throw MPDError(.permission, name, "you don't have permission for \"\(name)\"") }
        guard let range = spec.arguments, !range.contains(line.arguments.count) else { return }
        if range.lowerBound == range.upperBound { throw .wrongArguments(name) }
        throw MPDError(.argument, name, line.arguments.count < range.lowerBound ? "too few arguments for \"\(name)\"" : "too many arguments for \"\(name)\"")
    }

    static func one(_ line: MPDRequestLine, state: inout MPDClientState, context: Context) async throws(MPDError) -> String {
        let authorized = state.authorized
        try check(line, authorized: authorized)
        let name = line.command, arguments = line.arguments
        let controller = context.controller
        func perform(_ request: ControlRequest) async throws(MPDError) {
            do throws(ControlError) {
                _ = try await ControlCommands.perform(request, controller: controller)
            } catch {
                throw MPDError(.system, name, error.description)
            }
        }
        switch name {
        case "ping": return ""
        case "password":
            let right = context.password.map { equalInConstantTime($0, arguments[0]) } ?? false
            let wait = context.gate.wait(for: context.peer, right: right)
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            guard right else { throw MPDError(.password, name, "incorrect password") }
            state.authorized = true
            return ""
        case "tagtypes":
            return try MPDTags.command(arguments, mask: &state.tags)
        case "commands":
            return table.filter { $0.value.open || authorized }.keys.sorted().map { "command: \($0)\n" }.joined()
        case "notcommands":
            return table.filter { !($0.value.open || authorized) }.keys.sorted().map { "command: \($0)\n" }.joined()
        case "status":
            let report = await controller.status()
            let (songs, version) = context.queue.songs(of: report)
            return MPDResponse.status(report, songs: songs, version: version)
        case "currentsong":
            let report = await controller.status()
            return context.queue.songs(of: report).songs.first.map { MPDResponse.song($0, station: report.station, tags: state.tags) } ?? ""
        case "playlistinfo":
            let report = await controller.status()
            let songs = context.queue.songs(of: report).songs
            let range = try arguments.first.map { text throws(MPDError) in try positions(text, count: songs.count, name) } ?? 0..<songs.count
            return songs[range].map { MPDResponse.song($0, station: report.station, tags: state.tags) }.joined()
        case "getvol":
            return "volume: \(await controller.status().volume)\n"
        case "setvol":
            try await perform(.volume(percent: try unsigned(arguments[0], name, upTo: 100)))
        case "volume":
            let change = try integer(arguments[0], name, within: -100...100)
            try await perform(.volume(percent: max(0, min(100, await controller.status().volume + change))))
        case "play":
            // A radio's queue is what airs: only position 0, the spin on air, can be played.
            if let position = arguments.first, try unsigned(position, name) != 0 { throw MPDError(.argument, name, "Bad song index") }
            let report = await controller.status()
            switch report.state {
            case .paused where report.reason == .interruption: try await perform(.resume) // re-joins the live position
            case .idle, .error: try await perform(.play(station: nil, ago: nil))
            case .playing, .loading, .paused: break // playing, or paused for the device: it plays when the device is back
            }
        case "pause":
            let pause: Bool
            if let argument = arguments.first {
                guard argument == "0" || argument == "1" else { throw MPDError(.argument, name, "Boolean (0/1) expected: \(argument)") }
                pause = argument == "1"
            } else {
                let report = await controller.status()
                pause = !(report.state == .paused && report.reason == .interruption)
            }
            // The interrupt button's pause: the station goes on, and resuming re-joins it live.
            try await perform(pause ? .pause : .resume)
        case "stop", "clear": try await perform(.stop)
        case "next": try await perform(.next)
        case "previous": try await perform(.previous)
        case "listplaylists":
            let report = await controller.status()
            return MPDResponse.playlists(await controller.stationList(), modified: modified(report.config.file))
        case "lsinfo":
            // The root of a radio's "music directory" is its stations (mpc's lsplaylists lists them so); there is nothing below it.
            guard arguments.first.map({ $0.isEmpty || $0 == "/" }) ?? true else { throw MPDError(.noExist, name, "No such directory") }
            let report = await controller.status()
            return MPDResponse.playlists(await controller.stationList(), modified: modified(report.config.file))
        case "load":
            guard await controller.stationList().stations.contains(where: { $0.name == arguments[0] }) else {
                throw MPDError(.noExist, name, "No such playlist")
            }
            try await perform(.play(station: arguments[0], ago: nil))
        case "outputs":
            return MPDResponse.outputs(await controller.status())
        default:
            // `idle` is the connection's; `check` has refused every other name.
            throw MPDError(.unknown, "", "unknown command \"\(name)\"")
        }
        return ""
    }

    // MARK: arguments, as MPD reads them (`src/protocol/ArgParser.cxx`)

    static func unsigned(_ text: String, _ name: String, upTo limit: Int = Int(UInt32.max)) throws(MPDError) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text.prefix(12)) else {
            throw MPDError(.argument, name, "Integer expected: \(MPDResponse.oneLine(text))")
        }
        guard text.count <= 12, value <= limit else { throw MPDError(.argument, name, "Number too large: \(MPDResponse.oneLine(text))") }
        return value
    }

    static func integer(_ text: String, _ name: String, within range: ClosedRange<Int>) throws(MPDError) -> Int {
        let digits = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.dropFirst()) : text
        let magnitude = try unsigned(digits, name)
        let value = text.hasPrefix("-") ? -magnitude : magnitude
        guard range.contains(value) else { throw MPDError(.argument, name, "Number too large: \(MPDResponse.oneLine(text))") }
        return value
    }

    /// `N`, `N:` or `N:M` within a queue of `count` songs (the end clipped to it, as MPD clips it).
    static func positions(_ text: String, count: Int, _ name: String) throws(MPDError) -> Range<Int> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let start: Int, end: Int
        do throws(MPDError) {
            start = try unsigned(parts[0], name)
            end = parts.count == 1 ? start + 1 : parts[1].isEmpty ? Int(UInt32.max) : try unsigned(parts[1], name)
        } catch {
            if error.message.hasPrefix("Number too large") { throw error }
            throw MPDError(.argument, name, "Integer or range expected: \(MPDResponse.oneLine(text))")
        }
        guard start <= end else { throw MPDError(.argument, name, "Malformed range: \(MPDResponse.oneLine(text))") }
        guard parts.count == 1 ? start < count : start <= count else { throw MPDError(.argument, name, "Bad song index") }
        return start..<min(end, count)
    }

    /// When the configuration file last changed (the stations' "Last-Modified"); now when it cannot be asked.
    static func modified(_ path: String) -> Date {
        var info = stat()
        guard stat(path, &info) == 0 else { return Date() }
        return Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec))
    }

    /// Compares every byte whatever the first difference: how long a wrong password takes says nothing of it.
    static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = x.count ^ y.count
        for index in 0..<max(x.count, y.count) {
            difference |= Int((index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0))
        }
        return difference == 0
    }
}
