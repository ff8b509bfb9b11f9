import FoundationEssentials
import Glibc
import PlayolaControl
import PlayolaEngine

/// The text of MPD's answers made from the service's status: `status`, songs (`currentsong`, `playlistinfo`),
/// `outputs`, `listplaylists`, in MPD 0.23's fields and order (`src/command/PlayerCommands.cxx`,
/// `src/SongPrint.cxx`). Every value is one line: control characters in a title become blanks.
enum MPDResponse {
    /// MPD's states: playing and loading are `play` (a station that loads will play), paused for any reason
    /// `pause`, idle and error `stop`.
    static func state(_ report: StatusReport) -> String {
        switch report.state {
        case .playing, .loading: "play"
        case .paused: "pause"
        case .idle, .error: "stop"
        }
    }

    static func status(_ report: StatusReport, songs: [MPDQueue.Song], version: Int) -> String {
        let state = state(report)
        var text = "volume: \(report.volume)\nrepeat: 0\nrandom: 0\nsingle: 0\nconsume: 0\npartition: default\n"
            + "playlist: \(version)\nplaylistlength: \(songs.count)\nmixrampdb: 0\nstate: \(state)\n"
        if let current = songs.first { text += "song: \(current.position)\nsongid: \(current.id)\n" }
        if state != "stop" {
            let elapsed = max(0, report.spin?.position ?? 0)
            let length = songs.first?.length
            text += "time: \(Int(elapsed.rounded())):\(Int((length ?? 0).rounded()))\nelapsed: \(decimal(elapsed))\n"
                + "bitrate: \(report.stream?.bitrate ?? 0)\n"
            if let length { text += "duration: \(decimal(length))\n" }
            if let rate = report.deviceRate { text += "audio: \(rate):\(bits(report.deviceFormat)):2\n" }
        }
        if report.state == .error, let error = report.lastError { text += "error: \(oneLine(error))\n" }
        if songs.count > 1 { text += "nextsong: \(songs[1].position)\nnextsongid: \(songs[1].id)\n" }
        return text
    }

    /// One queue entry; `station` is its `Name`; `tags`: those the client asked for (lower-case).
    static func song(_ song: MPDQueue.Song, station: String?, tags: Set<String> = ["artist", "title", "name"]) -> String {
        var text = "file: \(oneLine(song.file))\n"
        if !song.artist.isEmpty, tags.contains("artist") { text += "Artist: \(oneLine(song.artist))\n" }
        if !song.title.isEmpty, tags.contains("title") { text += "Title: \(oneLine(song.title))\n" }
        if let station, tags.contains("name") { text += "Name: \(oneLine(station))\n" }
        if let length = song.length { text += "Time: \(Int(length.rounded()))\nduration: \(decimal(length))\n" }
        return text + "Pos: \(song.position)\nId: \(song.id)\n"
    }

    /// The one output: the configured device.
    static func outputs(_ report: StatusReport) -> String {
        "outputid: 0\noutputname: \(oneLine(report.device))\nplugin: alsa\noutputenabled: 1\n"
    }

    /// The stations as stored playlists; `modified` is when the configuration naming them last changed.
    static func playlists(_ list: StationList, modified: Date) -> String {
        list.stations.map { "playlist: \(oneLine($0.name))\nLast-Modified: \(iso8601(modified))\n" }.joined()
    }

    /// `s16` → 16 … `float32` → `f`, as MPD writes a float format; 16 when the device said nothing.
    static func bits(_ format: String?) -> String {
        switch format {
        case "s24": "24"
        case "s32": "32"
        case "float32": "f"
        default: "16"
        }
    }

    /// Three decimals, as MPD's `{:1.3f}` (FoundationEssentials has no String(format:)).
    static func decimal(_ value: Double) -> String {
        let milli = Int((max(0, min(value, 1e12)) * 1000).rounded())
        let fraction = String(milli % 1000)
        return "\(milli / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `2026-12-03T07:17:54Z`: ISO 8601 in UTC, to the second, as MPD writes times.
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// A value on one line: a newline in a title would end it and start a forged line of the answer.
    static func oneLine(_ text: String) -> String {
        guard ControlCharacters.first(in: text) != nil || text.contains("\t") else { return text }
        return String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    }
}
