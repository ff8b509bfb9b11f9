import Glibc
import PlayolaEngine

/// Decoders read files, so each input is written to one (on tmpfs where there is one) and opened as the
/// player would: probed, decoded for a while, sought and decoded again.
enum FileFuzzing {
    static let path: String = {
        let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        atexit { unlink(FileFuzzing.path) }
        return "\(folder)/playola-fuzz-\(getpid())"
    }()

    /// Writes `bytes` to the input file; false if it cannot (then the input is skipped).
    static func write(_ bytes: [UInt8]) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    /// Opens the input file with the decoder its bytes call for and plays some of it; errors are answers.
    static func decode(seekTo seekFrame: Int64) {
        guard let decoder = try? openAudioFile(path: path) else { return }
        let chunk = 1024
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * 8)
        defer { buffer.deallocate() }
        func play(upTo frames: Int) {
            var done = 0
            while done < frames, let got = try? decoder.read(into: buffer, maxFrames: chunk), got > 0 { done += got }
        }
        play(upTo: 48000)
        guard (try? decoder.seek(toFrame: seekFrame)) != nil else { return }
        play(upTo: 4096)
    }

    /// A seek position the input chooses (its last two bytes), so seeks are explored too.
    static func seekFrame(_ input: UnsafeRawBufferPointer) -> Int64 {
        guard input.count >= 2 else { return 0 }
        return Int64(input[input.count - 2]) << 16 | Int64(input[input.count - 1]) << 4
    }
}

enum MP4Fuzzing {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 8 else { return }
        var bytes = Array(input)
        // Keep the signature, so that every input reaches the MP4 reader rather than another decoder.
        bytes.replaceSubrange(4..<8, with: Array("ftyp".utf8))
        guard FileFuzzing.write(bytes) else { return }
        FileFuzzing.decode(seekTo: FileFuzzing.seekFrame(input))
    }
}

enum ADTSFuzzing {
    static func run(_ input: UnsafeRawBufferPointer) {
        StreamFuzzing.decode(input, as: .aac)
        guard input.count >= 2 else { return }
        var bytes = Array(input)
        // An ADTS sync word (layer 0), keeping the input's MPEG-version and CRC bits.
        bytes[0] = 0xFF
        bytes[1] = 0xF0 | (bytes[1] & 0x09)
        guard FileFuzzing.write(bytes) else { return }
        FileFuzzing.decode(seekTo: FileFuzzing.seekFrame(input))
    }
}

enum ICYFuzzing {
    /// Input: two bytes of metaint (1–4096), one of read size (1–256), then the stream, cut into reads.
    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 3 else { return }
        let metaint = 1 + (Int(input[0]) << 8 | Int(input[1])) % 4096
        let readSize = 1 + Int(input[2])
        guard var stripper = try? ICYMetadataStripper(metaint: metaint) else { return }
        let stream = UnsafeRawBufferPointer(rebasing: input[3...])
        var audioBytes = 0
        var at = 0
        while at < stream.count {
            let end = min(stream.count, at + readSize)
            let read = UnsafeRawBufferPointer(rebasing: stream[at..<end])
            let changes = stripper.consume(read) { audioBytes += $0.count }
            for change in changes { precondition(!change.title.isEmpty || change.artist == nil, "an artist without a title") }
            at = end
        }
        precondition(audioBytes <= stream.count, "more audio out than bytes in")
    }
}
