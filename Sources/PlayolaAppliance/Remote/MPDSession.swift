
/// One MPD connection's protocol, as a value: lines and changes in, what to write and run out (the swift-nio
/// state machine style: `RemoteLoop` owns the socket and the tasks, this owns the decisions, and
/// `MPDSessionTests` test it alone). It follows MPD's `src/client/Process.cxx` and `Idle.cxx`: a command
/// list is gathered and run at its end; `idle` waits for a change of the subsystems it names (changes pile up
/// in between, so none is missed), and only `noidle` may be sent meanwhile.
struct MPDSession {
    enum Action: Equatable {
        case write(String)
        /// Run these commands (one, or a command list) and hand the outcome to `finished`; no line is given
        /// to the session meanwhile.
        case execute(MPDCommands.Batch)
        /// After writing what is pending.
        case close
    }

    /// The password given (or none asked), the tags it wants.
    private(set) var state: MPDClientState
    /// Gathering a command list: whether it is `command_list_ok_begin`, its lines, their bytes.
    private var list: (ok: Bool, lines: [[UInt8]], bytes: Int)?
    /// Waiting in `idle` for these.
    private var idle: Set<MPDSubsystem>?
    /// Changes not yet told.
    private var pending: Set<MPDSubsystem> = []
    private(set) var executing = false
    let listLimit: Int

    init(authorized: Bool, listLimit: Int = MPDLimits().commandListBytes) {
        state = MPDClientState(authorized: authorized)
        self.listLimit = listLimit
    }

    /// In `idle`: the loop lets such a connection sit for as long as it likes.
    var isIdle: Bool { idle != nil }

    /// One line from the client, without its newline.
    mutating func received(_ line: [UInt8]) -> [Action] {
        precondition(!executing, "the loop holds lines back while a batch runs")
        var trimmed = line[...]
        while let last = trimmed.last, last <= 0x20 { trimmed.removeLast() }
        let text = String(decoding: trimmed, as: UTF8.self)
        if idle != nil {
            guard text == "noidle" else {
                // MPD closes without a word; the client learns why first.
                return [.write(MPDError(.unknown, "", "only noidle may be sent while idle; closing").line(at: 0)), .close]
            }
            idle = nil
            return [.write("OK\n")]
        }
        if var gathering = list {
            if text == "command_list_end" {
                list = nil
                executing = true
                return [.execute(MPDCommands.Batch(lines: gathering.lines, listOK: gathering.ok))]
            }
            if text == "idle" || text == "noidle" || text.hasPrefix("idle ") {
                return [.write(MPDError(.unknown, "", "\(text) is not possible in a command list; closing").line(at: gathering.lines.count)), .close]
            }
            gathering.bytes += line.count + 1
            guard gathering.bytes <= listLimit else {
                return [.write(MPDError(.unknown, "", "a command list of more than \(listLimit) bytes; closing").line(at: gathering.lines.count)), .close]
            }
            gathering.lines.append(Array(line))
            list = gathering
            return []
        }
        switch text {
        case "noidle": return [] // the idle it ended has answered already
        case "command_list_begin", "command_list_ok_begin":
            list = (text == "command_list_ok_begin", [], 0)
            return []
        default: break
        }
        if text == "idle" || text.hasPrefix("idle ") || text.hasPrefix("idle\t") { return startIdle(Array(trimmed)) }
        executing = true
        return [.execute(MPDCommands.Batch(lines: [Array(line)]))]
    }

    private mutating func startIdle(_ line: [UInt8]) -> [Action] {
        let request: MPDRequestLine
        do throws(MPDRequestLine.Failure) {
            request = try MPDRequestLine(line)
        } catch {
            return [.write(error.error.line(at: 0))] + (error.closes ? [.close] : [])
        }
        do throws(MPDError) {
            try MPDCommands.check(request, authorized: state.authorized)
        } catch {
            return [.write(error.line(at: 0))]
        }
        var wanted: Set<MPDSubsystem> = []
        for name in request.arguments {
            guard let subsystem = MPDSubsystem(rawValue: name) else {
                return [.write(MPDError(.argument, "idle", "Unrecognized idle event: \(MPDResponse.oneLine(name))").line(at: 0))]
            }
            wanted.insert(subsystem)
        }
        idle = wanted.isEmpty ? Set(MPDSubsystem.allCases) : wanted
        return tell()
    }

    /// What a batch gave: its text is written, and the connection closes when it said so.
    mutating func finished(_ outcome: MPDCommands.Outcome) -> [Action] {
        executing = false
        state = outcome.state
        return (outcome.text.isEmpty ? [] : [.write(outcome.text)]) + (outcome.close ? [.close] : [])
    }

    /// The service's status changed in `subsystems`: an idle that waits for one of them answers now.
    mutating func changed(_ subsystems: Set<MPDSubsystem>) -> [Action] {
        pending.formUnion(subsystems)
        return tell()
    }

    private mutating func tell() -> [Action] {
        guard let wanted = idle else { return [] }
        let told = pending.intersection(wanted)
        guard !told.isEmpty else { return [] }
        pending.subtract(told)
        idle = nil
        return [.write(MPDSubsystem.allCases.filter(told.contains).map { "changed: \($0.rawValue)\n" }.joined() + "OK\n")]
    }
}
