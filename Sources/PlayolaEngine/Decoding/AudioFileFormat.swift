import PlayolaSupport

/// The container/codec of a file, told from its first bytes (the extension is only a hint servers get wrong).
public enum AudioFileFormat: Sendable, Equatable {
    case mp3, mp4, adts, sndfile

    /// Reads the file's first bytes and names its format.
    public static func sniff(path: String) throws(AudioDecoderError) -> AudioFileFormat {
        let file = try FileDescriptor.reading(path)
        defer { file.close() }
        var head = [UInt8](repeating: 0, count: 4096)
        let count = head.withUnsafeMutableBytes { (try? file.read(into: $0)) ?? -1 }
        guard count > 0 else { throw .invalid(path: path, reason: "the file is empty") }
        guard let format = classify(Array(head[0..<count])) else { throw .unknownFormat(path: path) }
        return format
    }

    static func classify(_ bytes: [UInt8]) -> AudioFileFormat? {
        func ascii(_ at: Int, _ text: String) -> Bool {
            let expected = Array(text.utf8)
            return bytes.count >= at + expected.count && Array(bytes[at..<at + expected.count]) == expected
        }
        if ascii(4, "ftyp") { return .mp4 }
        if ascii(0, "RIFF") || ascii(0, "fLaC") || ascii(0, "OggS") || ascii(0, "FORM") { return .sndfile }
        if ascii(0, "ID3") { return .mp3 }
        // Frame sync: 11 set bits. The layer field (bits 1-2 of byte 1) is 00 for ADTS, non-zero for MPEG audio.
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return nil }
        if bytes[1] & 0xF6 == 0xF0 { return .adts }
        return (bytes[1] >> 1) & 0x3 != 0 ? .mp3 : nil
    }
}

/// Opens `path` with the decoder its bytes call for.
public func openAudioFile(path: String) throws(AudioDecoderError) -> any AudioDecoder {
    switch try AudioFileFormat.sniff(path: path) {
    case .mp3: try MP3Decoder(path: path)
    case .mp4: try AACDecoder(track: try MP4AudioTrackReader.read(path: path), path: path)
    case .adts: try AACDecoder(track: try ADTSReader.read(path: path), path: path)
    case .sndfile: try SndFileDecoder(path: path)
    }
}
