import Foundation
import PlayolaEngine
import XCTest

/// Audio fixtures made by the tests themselves with Debian's ffmpeg (LAME for MP3, ffmpeg's own AAC
/// encoder for M4A/ADTS): tones of known frequency and amplitude, kept in a cache folder between runs.
package enum Fixtures {
    package static let amplitude = 0.25

    package static let directory: String = {
        let path = NSTemporaryDirectory() + "playola-fixtures-v3"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    package enum Codec: String {
        case mp3, m4a, aac, wav, flac
        /// Ogg Vorbis and Ogg Opus (Opus takes 48 kHz only).
        case ogg, opus
    }

    /// A stereo (or mono) tone of `frequency` Hz and `seconds`, with a 2 ms fade-in and 20 ms fade-out
    /// (as real recordings start and end quietly), encoded as `codec` at `rate`.
    package static func tone(
        _ frequency: Double, seconds: Double, rate: Int, codec: Codec, mono: Bool = false, name: String? = nil,
        tags: [String] = []
    ) throws -> String {
        let fileName = name ?? "tone-\(Int(frequency))Hz-\(Int(seconds * 1000))ms-\(rate)-\(mono ? "mono" : "stereo").\(codec.rawValue)"
        let envelope = "min(1\\,t/0.002)*min(1\\,(\(seconds)-t)/0.02)"
        let channel = "\(amplitude)*sin(2*PI*\(frequency)*t)*\(envelope)"
        let source = "aevalsrc=\(mono ? channel : channel + "|" + channel):s=\(rate):d=\(seconds)"
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", source]
        switch codec {
        case .mp3: arguments += ["-c:a", "libmp3lame", "-b:a", mono ? "128k" : "256k", "-f", "mp3"]
        case .m4a: arguments += ["-c:a", "aac", "-b:a", mono ? "96k" : "192k", "-f", "mp4"]
        case .aac: arguments += ["-c:a", "aac", "-b:a", "192k", "-f", "adts"]
        case .wav: arguments += ["-c:a", "pcm_s16le", "-f", "wav"]
        case .flac: arguments += ["-c:a", "flac", "-f", "flac"]
        case .ogg: arguments += ["-c:a", "libvorbis", "-q:a", "6", "-f", "ogg"]
        case .opus: arguments += ["-c:a", "libopus", "-b:a", "160k", "-f", "ogg"]
        }
        for tag in tags { arguments += ["-metadata", tag] }
        return try made(fileName, ffmpeg: arguments)
    }

    /// The fixture `name` in the cache folder, made by ffmpeg with `arguments` (the output file left out) if it
    /// is not there yet: into a part of this process's own, renamed over the name, since tests in other
    /// processes may make the same file at once and read it (a file read while ffmpeg wrote it had no `moov`).
    package static func made(_ name: String, ffmpeg arguments: [String]) throws -> String {
        let path = directory + "/" + name
        if FileManager.default.fileExists(atPath: path) { return path }
        let part = path + ".part-\(getpid())"
        try run("ffmpeg", arguments + [part])
        guard rename(part, path) == 0 else { throw NSError(domain: "Fixtures", code: Int(errno)) }
        return path
    }

    package static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "Fixtures", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments.joined(separator: " ")) failed"])
        }
    }

    /// A fresh, empty temporary folder.
    package static func temporaryDirectory(_ label: String) -> String {
        let path = NSTemporaryDirectory() + "playola-\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
