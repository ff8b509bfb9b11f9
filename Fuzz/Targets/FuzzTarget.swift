import Glibc
import PlayolaEngine

/// The parsers that read bytes from outside, each as a function of one input: the libFuzzer driver
/// (`playola-fuzz`) calls them, and `FuzzCorpusTests` replays the kept corpus through them.
/// A crash, a trap, a hang or a huge allocation inside `run` is a bug; errors thrown by the parsers are not.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The MP4 box and sample-table reader and the AAC decoder over it.
    case mp4
    /// The ADTS file indexer and the ADTS framing of live streams.
    case adts
    /// The ICY metadata stripper of internet radio streams.
    case icy
    /// Ogg streams: libogg's framing, the Vorbis and Opus headers and tags, the codecs.
    case ogg
    /// HLS: playlists, MPEG-TS and fragmented MP4 segments, ID3 tags.
    case hls
    /// Fragmented MP4: a file's movie fragments through the file reader, and as HLS segments through the
    /// segment demuxer and the AAC stream decoder.
    case fmp4
    /// Ogg pages arriving in pieces, the last one repeated (a packet continued without end, granules).
    case oggPages = "ogg-pages"
    /// A live HLS playlist joined and reloaded, as the follower does.
    case hlsReload = "hls-reload"
    /// A connection's network side under a flood of ICY metadata blocks.
    case icyFlood = "icy-flood"
    /// HLS segments' ID3 tags in a flood, through the demuxer into the connection's titles.
    case id3Flood = "id3-flood"

    public func run(_ input: UnsafeRawBufferPointer) {
        switch self {
        case .mp4: MP4Fuzzing.run(input)
        case .adts: ADTSFuzzing.run(input)
        case .icy: ICYFuzzing.run(input)
        case .ogg: OggFuzzing.run(input)
        case .hls: HLSFuzzing.run(input)
        case .fmp4: FragmentFuzzing.run(input)
        case .oggPages: OggPageFuzzing.run(input)
        case .hlsReload: HLSReloadFuzzing.run(input)
        case .icyFlood: ICYFloodFuzzing.run(input)
        case .id3Flood: ID3FloodFuzzing.run(input)
        }
    }
}
