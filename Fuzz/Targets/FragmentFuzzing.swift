import PlayolaEngine

enum FragmentFuzzing {
    /// The input as a fragmented MP4 file, read as the player reads a file (its fragments' index, decoding,
    /// a seek), and as the HLS stream it would be served as: the boxes before the first `moof` are the init
    /// section (EXT-X-MAP), each `moof` with what follows it up to the next is a media segment, demuxed
    /// in order and the audio decoded as the HLS follower's stream.
    static func run(_ input: UnsafeRawBufferPointer) {
        MP4Fuzzing.run(input)
        let bytes = Array(input)
        let fragments = topLevelBoxes(bytes).filter { $0.type == "moof" }.map(\.start)
        guard let first = fragments.first else { return }
        var demuxer = SegmentDemuxer(onTags: { _ in })
        var audio: [UInt8] = []
        for (index, start) in fragments.enumerated() {
            let end = index + 1 < fragments.count ? fragments[index + 1] : bytes.count
            let initSection = index == 0 ? (url: "init", bytes: Array(bytes[..<first])) : nil
            guard let got = try? demuxer.audio(of: Array(bytes[start..<end]), initSection: initSection, url: "fuzz") else { return }
            audio += got
        }
        audio.withUnsafeBytes { StreamFuzzing.decode($0, as: .aac) }
    }

    /// Where each top-level box starts and its type, up to the first whose size makes no sense.
    private static func topLevelBoxes(_ bytes: [UInt8]) -> [(start: Int, type: String)] {
        var boxes: [(start: Int, type: String)] = []
        var at = 0
        while bytes.count - at >= 8 {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            boxes.append((at, String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)))
            guard size >= 8 else { break }
            at += size
        }
        return boxes
    }
}
