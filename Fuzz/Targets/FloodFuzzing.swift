import PlayolaEngine

/// A live playlist as the follower sees it: joined, then reloaded again and again.
enum HLSReloadFuzzing {
    static let separator = Array("\n#RELOAD\n".utf8)

    /// Input: playlists separated by `#RELOAD` lines: the first joined, each next one a reload (and then the
    /// first again), every segment played as it comes.
    static func run(_ input: UnsafeRawBufferPointer) {
        let bodies = split(Array(input), at: separator)
        let url = "http://fuzz/live/a.m3u8"
        guard let first = bodies.first, case .media(let media)? = try? HLSPlaylist(bytes: first, url: url) else { return }
        let window = HLSMediaWindow(media, body: first, url: url)
        var played = window.next
        for body in bodies.dropFirst() + [first] {
            for segment in window.pending {
                precondition(segment.sequence >= window.next, "a segment played twice")
                window.played(segment)
            }
            precondition(window.next >= played, "the follower went back")
            played = window.next
            precondition(window.media.segments.count <= HLSPlaylist.maxSegments, "more segments kept than the cap")
            precondition(window.reloadDelay >= HLSMediaWindow.minimumReload, "a reload sooner than the minimum")
            try? window.reload(body)
        }
    }

    static func split(_ bytes: [UInt8], at separator: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = 0
        var at = 0
        while at + separator.count <= bytes.count {
            if bytes[at..<at + separator.count].elementsEqual(separator) {
                parts.append(Array(bytes[start..<at]))
                at += separator.count
                start = at
            } else {
                at += 1
            }
        }
        parts.append(Array(bytes[start...]))
        return parts
    }
}

/// What a connection under a metadata flood hands the player: a title within its limit, once.
enum TitleFlood {
    /// One look of the player for a title.
    static func check(_ connection: StreamConnection) {
        guard let title = connection.takeTitle() else { return }
        for text in [title.title, title.artist, title.song, title.url].compactMap({ $0 }) {
            precondition(text.count <= ICYMetadata.maxLength, "a title longer than its limit: \(text.count)")
        }
        precondition(connection.takeTitle() == nil, "a title taken twice")
    }
}

enum ICYFloodFuzzing {
    /// Input: one byte of metaint (1–64), then metadata block texts separated by NUL bytes: each becomes a
    /// block after `metaint` bytes of audio, the whole sent 16 times over, in reads of 1500 bytes, with the
    /// player's look for a title between reads.
    static func run(_ input: UnsafeRawBufferPointer) {
        guard input.count >= 2 else { return }
        let metaint = 1 + Int(input[0]) % 64
        var stream: [UInt8] = []
        for text in input[1...].split(separator: 0, omittingEmptySubsequences: false) {
            stream += [UInt8](repeating: 0xFF, count: metaint)
            let blocks = min(255, (text.count + 15) / 16)
            stream.append(UInt8(blocks))
            stream += text.prefix(blocks * 16) + [UInt8](repeating: 0, count: blocks * 16 - min(text.count, blocks * 16))
        }
        let connection = StreamConnection(url: "http://fuzz/stream", station: StreamStation(name: "fuzz", url: "http://fuzz/stream"))
        guard connection.receive(headers: [("Content-Type", "audio/mpeg"), ("icy-metaint", "\(metaint)")]) == nil else { return }
        stream.withUnsafeBytes { raw in
            for _ in 0..<16 {
                var at = 0
                while at < raw.count {
                    let end = min(raw.count, at + 1500)
                    _ = connection.receive(body: UnsafeRawBufferPointer(rebasing: raw[at..<end]))
                    TitleFlood.check(connection)
                    at = end
                }
            }
        }
    }
}

enum ID3FloodFuzzing {
    /// Input: ID3v2 frame bodies separated by NUL NUL bytes; each is a title (TIT2) and an artist (TPE1) of an
    /// ID3v2.4 tag before a packed-audio HLS segment, the segments demuxed in turn as the follower does, with
    /// the player's look for a title after every eighth.
    static func run(_ input: UnsafeRawBufferPointer) {
        let connection = StreamConnection(url: "http://fuzz/live.m3u8", station: StreamStation(name: "fuzz", url: "http://fuzz/live.m3u8"))
        var demuxer = SegmentDemuxer(onTags: connection.announce)
        let bodies = HLSReloadFuzzing.split(Array(input), at: [0, 0])
        for (index, body) in bodies.enumerated() {
            let frames = frame("TIT2", body) + frame("TPE1", body.reversed())
            let segment = Array("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count) + frames + [0xFF, 0xFB, 0x90, 0x00]
            _ = try? demuxer.audio(of: segment, initSection: nil, url: "http://fuzz/\(index).aac")
            if index % 8 == 7 { TitleFlood.check(connection) }
        }
        TitleFlood.check(connection)
    }

    private static func frame(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + syncsafe(body.count) + [0, 0] + body
    }

    private static func syncsafe(_ value: Int) -> [UInt8] {
        (0..<4).reversed().map { UInt8((value >> ($0 * 7)) & 0x7F) }
    }
}
