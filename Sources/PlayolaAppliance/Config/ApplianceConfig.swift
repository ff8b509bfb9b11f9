import Glibc
import PlayolaEngine
import PlayolaApplianceSupport

/// Everything `/etc/playola.ini` says, with the defaults filled in. Built by `ApplianceConfig.load(path:)`.
package struct ApplianceConfig: Sendable, Equatable {
    /// How far back a station may be time-shifted (`timeshift`, `play --ago`): a month, so the date it makes
    /// stays a date the schedule's arithmetic handles.
    package static let maximumTimeshift = 30 * 86_400.0
    /// The longest `idle_close`: a day.
    static let maximumIdleClose = 86_400.0

    package struct Player: Sendable, Equatable {
        /// Played at first boot; afterwards the last station played wins. nil: the first station in the file.
        var station: String? = nil
        /// An ALSA PCM name.
        package var device = "default"
        /// Percent, 0...100.
        package var volume = 80
        /// 48000 or 44100; nil is `auto`: the device's rate of the two, 44.1 kHz first (`Output.mixRate`).
        package var rate: Int? = nil
        /// Seconds of silence (stopped, paused) after which the device is closed; nil: never.
        package var idleClose: Double? = 600
        /// Tone controls in dB, `ToneControl.range`; 0 is flat (and costs nothing).
        package var bass = 0.0
        package var treble = 0.0
        /// How a stream is held against the DAC's clock: frames stuffed (the default) or every frame resampled.
        package var clockHold = ClockHold.stuff
    }

    package struct Service: Sendable, Equatable {
        package var socket = "/run/playola/control.sock"
        package var stateDir = "/var/lib/playola"

        package init() {}
    }

    package struct Cache: Sendable, Equatable {
        /// Room for the spin playing and the next ones; less and a long spin cannot be fetched ahead.
        static let minimumSize: Int64 = 16 << 20
        /// 1 TiB: beyond any card the appliance runs from, and far from overflowing the cache's arithmetic.
        package static let maximumSize: Int64 = 1 << 40

        package var dir = "/var/cache/playola"
        /// Bytes.
        package var size: Int64 = 64 << 20
    }

    package struct Playola: Sendable, Equatable {
        enum TokenSource: Sendable, Equatable {
            case file(String)
            case inline(String)
        }

        package var api = "https://admin-api.playola.fm"
        var tokenSource: TokenSource? = nil

        /// The bearer token now, or nil. A token file is read again on every call, so a token replaced on
        /// disk (a refresh after a 401) is picked up without a restart.
        package func token() -> String? {
            switch tokenSource {
            case .inline(let token)?: return try? TokenFile.check(token).get()
            case .file(let path)?: return TokenFile.read(path)
            case nil: return nil
            }
        }
    }

    package struct LED: Sendable, Equatable {
        package var status: LineRef? = nil
        package var network: LineRef? = nil
    }

    package enum LogLevel: String, Sendable, Equatable, CaseIterable {
        case error, warning, info, debug
    }

    package struct Log: Sendable, Equatable {
        package var level = LogLevel.info
    }

    package struct Update: Sendable, Equatable {
        /// A signed bundle to look at once a day (playola-update-check.timer); nil: no checks.
        package var url: String? = nil
        /// The next bundle from the FAT partition may be older than the version running: the owner's
        /// deliberate step back, with the card in hand (a URL never installs an older one).
        package var allowOlder = false
    }

    package var player = Player()
    package var service = Service()
    package var cache = Cache()
    package var playola = Playola()
    /// In file order.
    package var stations: [StationConfig] = []
    package var gpio = GPIOConfig()
    package var led = LED()
    package var log = Log()
    package var update = Update()
    package var network = NetworkSettings()
    package var remote = RemoteSettings()
    package var hooks = HookSettings()
    /// nil: no `[fleet]` section, no fleet.
    package var fleet: FleetSettings?

    /// What to play when there is no saved last station.
    package var firstBootStation: StationConfig? {
        stations.first { $0.name == player.station } ?? stations.first
    }
}

package struct StationConfig: Sendable, Equatable {
    package var name: String
    package var kind: StationKind
    /// The line of its `[station NAME]` header.
    var line: Int
}

package enum StationKind: Sendable, Equatable {
    /// `timeshift`: seconds, negative: the schedule as it aired that long ago. nil: live.
    case playola(id: String, timeshift: Double?)
    /// `headers`: whole `Name: value` lines, sent with every request.
    case stream(url: String, headers: [String])
    case local(path: String)

    /// The INI's `type` value: `playola`, `stream` or `local`.
    package var type: String {
        switch self {
        case .playola: "playola"
        case .stream: "stream"
        case .local: "local"
        }
    }
}

/// A secret kept in its own file, so the config file can stay world-readable.
enum TokenFile {
    /// Larger than any bearer token; stops a wrong path (a log, a disk image) from being read whole.
    static let maximumSize = 64 << 10

    /// The token: the file's one line, trimmed; nil when the file is missing, unreadable, empty or not a
    /// single line of printable text (`problem` says why), so a CR or LF in it can never reach an HTTP header.
    static func read(_ path: String) -> String? {
        guard case .success(let token) = contents(path) else { return nil }
        return token
    }

    /// Why the token file cannot be used, when it exists but holds no usable token.
    static func problem(_ path: String) -> String? {
        guard case .failure(let problem) = contents(path) else { return nil }
        return problem.reason
    }

    struct Problem: Error { var reason: String }

    private static func contents(_ path: String) -> Result<String?, Problem> {
        guard let file = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK) else { return .success(nil) }
        defer { file.close() }
        var bytes = [UInt8](repeating: 0, count: maximumSize)
        let count = bytes.withUnsafeMutableBytes { (try? file.readFully(into: $0)) ?? 0 }
        return check(String(decoding: bytes[0..<count], as: UTF8.self))
    }

    /// One line of printable text (a final newline, CRLF too, and surrounding blanks are dropped).
    static func check(_ text: String) -> Result<String?, Problem> {
        var token = Substring(text)
        while let last = token.last, last.isNewline || last == " " || last == "\t" { token = token.dropLast() }
        while let first = token.first, first == " " || first == "\t" { token = token.dropFirst() }
        if let offset = ControlCharacters.first(in: String(token)) {
            let byte = Array(token.utf8)[offset]
            return .failure(Problem(reason: byte == 10 || byte == 13
                ? "holds more than one line; a token is one line"
                : "holds a control character (0x\(String(byte, radix: 16))) at byte \(offset + 1); a token is printable text"))
        }
        return .success(token.isEmpty ? nil : String(token))
    }

    /// True when anyone on the machine may read `path` (other-read bit); nil with errno set when stat fails.
    static func isWorldReadable(_ path: String) -> Bool? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IROTH != 0
    }
}
