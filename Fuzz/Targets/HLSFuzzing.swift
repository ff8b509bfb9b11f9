import PlayolaEngine

enum HLSFuzzing {
    /// The input as what an HLS server sends: a playlist (parsed, its variant chosen), a segment of each
    /// kind (TS, fragmented MP4 with the input's first half as its init section, packed audio after ID3).
    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        if let playlist = try? HLSPlaylist(body: String(decoding: bytes, as: UTF8.self), url: "http://fuzz/a/b.m3u8"),
           case .master(let variants, let audio) = playlist {
            _ = HLSPlaylist.chooseAudio(variants: variants, audio: audio)
        }
        var demuxer = SegmentDemuxer(onTags: { _ in })
        _ = try? demuxer.audio(of: bytes, initSection: nil, url: "fuzz")
        let half = bytes.count / 2
        _ = try? demuxer.audio(of: Array(bytes[half...]), initSection: ("init", Array(bytes[..<half])), url: "fuzz")
        var transportStream = TransportStreamDemuxer()
        transportStream.demux(bytes, audio: { _ in }, tags: { _ in })
    }
}
