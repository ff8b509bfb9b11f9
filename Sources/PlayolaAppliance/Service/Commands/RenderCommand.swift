import FoundationEssentials
import Glibc
import PlayolaEngine
import PlayolaConfig
import PlayolaApplianceSupport

/// `playola render`: a schedule rendered in virtual time to a WAV file or the null sink.
enum RenderCommand {
    static let help = """
        usage: playola render --schedule FILE.json --media DIR --from ISO8601 --duration SECONDS --out OUT.wav|null
               playola render --api URL --station-id ID [--cache DIR] [--cache-size BYTES]
                              --from ISO8601 --duration SECONDS --out OUT.wav|null
               options: [--rate 48000|44100] [--format s16|s24|f32] [--bass DB] [--treble DB]

        Renders a Playola schedule as fast as the CPU allows, against a clock driven by the frames written.
        With --schedule, download URLs are resolved to files in DIR by their last path component
        (percent-decoded). With --api, the station's schedule comes from the Playola API and its files through
        the cache (default: /tmp/playola-render-cache, 256M); the clock waits for a file still downloading.
        Prints what played when, and names each spin it had to drop and why. --bass and --treble: the tone
        controls (-12 to 12 dB) as the service applies them.
        """

    /// A week of audio: 29 billion frames at 48 kHz, far from Int64's limit, and a 116 GB WAV already.
    static let maximumDuration = 7 * 86_400.0
    /// The render cache's budget, bounded like the service's.
    static let cacheSizes = (1 << 20)...ApplianceConfig.Cache.maximumSize
    /// A schedule file, read whole: as much as the API client accepts in one answer.
    static let maximumScheduleSize = 32 << 20

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(
            words, valued: ["schedule", "media", "from", "duration", "out", "rate", "format", "api", "station-id",
                            "cache", "cache-size", "bass", "treble"])
        if arguments.flags.contains("help") {
            Console.out(help)
            return 0
        }
        let fromText = try arguments.required("from")
        guard let from = PlayolaDate.parse(fromText) else { throw UsageError("--from: not an ISO 8601 date: \(fromText)") }
        guard let duration = try arguments.seconds("duration", maximum: maximumDuration) else { throw UsageError("--duration is required") }
        let rate = Int(arguments.options["rate"] ?? "48000") ?? 0
        guard rate == 48000 || rate == 44100 else { throw UsageError("--rate: 48000 or 44100") }
        let format: SampleFormat
        switch arguments.options["format"] ?? "s16" {
        case "s16": format = .s16
        case "s24": format = .s24
        case "f32", "float": format = .float32
        case let other: throw UsageError("--format: s16, s24 or f32, not \(other)")
        }
        let out = try arguments.required("out")
        let sink: any AudioSink = out == "null"
            ? NullSink(sampleRate: rate)
            : try WAVFileSink(path: out, sampleRate: rate, format: format)
        if arguments.options["api"] != nil {
            try await renderStation(arguments, from: from, duration: duration, sink: sink)
            return 0
        }
        let schedulePath = try arguments.required("schedule")
        let media = MediaDirectory(path: try arguments.required("media"))
        let data: Data
        switch WholeFile.read(schedulePath, limit: maximumScheduleSize) {
        case .success(let bytes): data = bytes
        case .failure(let problem): throw UsageError("\(schedulePath) \(problem)")
        }
        let decoded = try Schedule.decode(data)
        for dropped in decoded.dropped { Console.error("\(schedulePath): \(dropped)") }
        let renderer = ProgramRenderer(
            schedule: decoded.schedule, from: from, sink: sink,
            resolveFile: { spin in spin.audioBlock.downloadURL.map(media.file(for:)) },
            report: { event in Console.out(event.description) })
        renderer.tone.set(bass: try toneGain(arguments, "bass"), treble: try toneGain(arguments, "treble"))
        try renderer.render(frames: Int64(duration * Double(rate)))
        try sink.drain()
        return 0
    }

    /// `--bass`/`--treble`: dB within the tone controls' range; 0 when not given.
    static func toneGain(_ arguments: Arguments, _ name: String) throws(UsageError) -> Double {
        guard let text = arguments.options[name] else { return 0 }
        guard let dB = ConfigValue.decibels(text) else {
            throw UsageError("--\(name): a gain in dB from \(Int(ToneControl.range.lowerBound)) to \(Int(ToneControl.range.upperBound)), not '\(text)'")
        }
        return dB
    }

    /// `--api`: a station from the Playola API, through the cache.
    static func renderStation(_ arguments: Arguments, from: Date, duration: Double, sink: any AudioSink) async throws {
        let http = HTTPClient()
        let api = PlayolaAPI(baseURL: try arguments.required("api"), http: http)
        let cacheDirectory = arguments.options["cache"] ?? "/tmp/playola-render-cache"
        let budget = try parseByteSize(arguments.options["cache-size"] ?? "256M", option: "--cache-size", range: cacheSizes)
        let cache = try AudioCache(directory: cacheDirectory, budgetBytes: budget)
        let downloader = AudioDownloader(http: http, cache: cache, onProblem: { Console.error("playola: \($0)") })
        let renderer = StationRenderer(api: api, downloader: downloader, stationID: try arguments.required("station-id"))
        try await renderer.render(
            from: from, seconds: duration, into: sink,
            report: { Console.out($0.description) }, notice: { Console.error("playola: \($0)") })
    }
}
