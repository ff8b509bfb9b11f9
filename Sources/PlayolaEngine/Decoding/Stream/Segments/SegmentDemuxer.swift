/// The audio of HLS segments of any of the three kinds RFC 8216 allows, told apart by their bytes:
/// MPEG-TS, fragmented MP4 (with its init section), or packed audio (ADTS or MP3 after an ID3 tag).
/// Titles from ID3 tags go to `onTags`, each once: a segment's last.
package struct SegmentDemuxer {
    private var transportStream = TransportStreamDemuxer()
    private var fragmented: (url: String, demuxer: FragmentedMP4Demuxer)?
    private var lastTags: StreamTags?
    private let onTags: @Sendable (StreamTags) -> Void

    package init(onTags: @escaping @Sendable (StreamTags) -> Void) {
        self.onTags = onTags
    }

    package func hasInitSection(_ url: String) -> Bool { fragmented?.url == url }

    /// After an `EXT-X-DISCONTINUITY`: the next segment may come from another encoder.
    package mutating func discontinuity() {
        transportStream = TransportStreamDemuxer()
    }

    /// The elementary stream in `segment`; `initSection` is a new init section to read first.
    package mutating func audio(of segment: [UInt8], initSection: (url: String, bytes: [UInt8])?, url: String) throws(AudioDecoderError) -> [UInt8] {
        if let initSection {
            // Caught and thrown again on purpose: a plain `try` here, when the init threw, left this struct with
            // a field released twice in Swift 6.3's debug builds (a crash destroying it later; FuzzCorpusTests
            // found it, replaying a playlist after any input).
            let made: FragmentedMP4Demuxer
            do { made = try FragmentedMP4Demuxer(initSegment: initSection.bytes, name: initSection.url) } catch { throw error }
            fragmented = (initSection.url, made)
        }
        var audio: [UInt8] = []
        audio.reserveCapacity(segment.count)
        if segment.count >= 189, segment[0] == 0x47, segment[188] == 0x47 {
            // Only the segment's last title: a segment of a few seconds may carry thousands of timed tags, and
            // the connection keeps only the latest anyway.
            var latest: StreamTags?
            transportStream.demux(segment, audio: { audio += $0 }, tags: { latest = $0 })
            if let latest { announce(latest) }
        } else if segment.count >= 8, ["ftyp", "styp", "moof", "sidx"].contains(String(decoding: segment[4..<8], as: UTF8.self)) {
            guard let fragmented else { throw .invalid(path: url, reason: "a fragmented MP4 segment without an init section (EXT-X-MAP)") }
            try fragmented.demuxer.demux(segment, name: url) { audio += $0 }
        } else {
            let tagLength = ID3Tag.length(at: segment[...]) ?? 0
            if let tags = ID3Tag.tags(in: segment[...]) { announce(tags) }
            audio += segment[tagLength...]
        }
        return audio
    }

    private mutating func announce(_ tags: StreamTags) {
        guard tags != lastTags else { return }
        lastTags = tags
        onTags(tags)
    }
}
