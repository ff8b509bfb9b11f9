import PlayolaDecoding
import PlayolaNetwork
import PlayolaSupport
import Synchronization

/// Plays an HLS station (RFC 8216) through a stream connection's buffer: the master playlist's audio
/// variant, its media playlist reloaded as the spec says, each segment fetched and its audio (MPEG-TS,
/// fragmented MP4 or packed audio) put into the buffer as the elementary stream the stream decoders read.
///
/// As with Icecast: a failed segment is tried once more and then passed over (it costs its own length);
/// a playlist that stops growing is a stall and ends the connection, and the player reconnects with backoff.
struct HLSFollower {
    let url: String
    let station: StreamStation
    let buffer: StreamBuffer
    /// Titles from the segments' ID3 tags.
    let onTags: @Sendable (StreamTags) -> Void
    /// More than any audio segment or playlist needs.
    static let maxBodyBytes = 16 << 20

    func run(http: HTTPClient, firstBody: String) async -> StreamConnection.Outcome {
        do throws(HTTPError) {
            var mediaURL = url
            var playlist = try parse(firstBody, url: url)
            if case .master(let variants, let audio) = playlist {
                guard let chosen = HLSPlaylist.chooseAudio(variants: variants, audio: audio) else {
                    throw .other("\(url): the master playlist has no variant to play")
                }
                mediaURL = chosen
                playlist = try parse(try await text(of: mediaURL, http: http), url: mediaURL)
            }
            guard case .media(var media) = playlist else { throw .other("\(mediaURL): a master playlist where a media playlist was expected") }
            return try await follow(&media, url: mediaURL, http: http)
        } catch {
            return .failed(error)
        }
    }

    private func follow(_ media: inout HLSPlaylist.Media, url: String, http: HTTPClient) async throws(HTTPError) -> StreamConnection.Outcome {
        // A live playlist is joined three segments from its end (RFC 8216 6.3.3), a finished one at its start.
        var next = media.hasEnded ? media.mediaSequence : (media.segments.dropLast(3).last.map { $0.sequence + 1 } ?? media.mediaSequence)
        var lastGrowth = monotonicSeconds()
        var demuxer = SegmentDemuxer(onTags: onTags)
        while true {
            for segment in media.segments where segment.sequence >= next {
                if Task.isCancelled { throw .cancelled }
                if let bytes = await fetchSegment(segment, http: http) {
                    if segment.isDiscontinuity { demuxer.discontinuity() }
                    let initSection = try await initSection(segment, demuxer: demuxer, http: http)
                    let audio: [UInt8]
                    do throws(AudioDecoderError) {
                        audio = try demuxer.audio(of: bytes, initSection: initSection, url: segment.url)
                    } catch {
                        throw .other("\(error)")
                    }
                    try await deliver(audio)
                }
                next = segment.sequence + 1
                lastGrowth = monotonicSeconds()
            }
            if media.hasEnded { return .ended }
            let stallLimit = max(station.stallSeconds, 3 * media.targetDuration)
            let grew = media.segments.last.map { $0.sequence >= next - 1 } ?? false
            try await wait(seconds: grew ? media.targetDuration : media.targetDuration / 2, alive: monotonicSeconds() - lastGrowth < stallLimit)
            if monotonicSeconds() - lastGrowth >= stallLimit {
                throw .timeout("\(url): the playlist has not grown for \(Int(stallLimit)) s")
            }
            if case .media(let reloaded) = try parse(try await text(of: url, http: http), url: url) {
                if reloaded.segments.first.map({ $0.sequence > next }) ?? false { next = reloaded.segments[0].sequence }  // fell behind
                media = reloaded
            }
        }
    }

    /// A segment's bytes, tried twice; nil when both fail (the segment is passed over).
    private func fetchSegment(_ segment: HLSPlaylist.Segment, http: HTTPClient) async -> [UInt8]? {
        for attempt in 0..<2 {
            if let bytes = try? await body(of: segment.url, http: http) { return bytes }
            if attempt == 0 { try? await Task.sleep(for: .milliseconds(500)) }
        }
        return nil
    }

    private func initSection(_ segment: HLSPlaylist.Segment, demuxer: SegmentDemuxer, http: HTTPClient) async throws(HTTPError) -> (url: String, bytes: [UInt8])? {
        guard let url = segment.initSection else { return nil }
        if demuxer.hasInitSection(url) { return nil }
        return (url, try await body(of: url, http: http))
    }

    /// Puts `audio` into the buffer as room comes: a segment arrives whole, faster than it plays.
    private func deliver(_ audio: [UInt8]) async throws(HTTPError) {
        var at = 0
        while at < audio.count {
            let count = min(buffer.room, audio.count - at)
            if count > 0 {
                audio[at..<at + count].withUnsafeBytes { buffer.append($0) }
                at += count
            } else {
                try await wait(seconds: 0.1, alive: true)
            }
        }
    }

    /// Sleeps, telling the stall watch that the source is alive when it is.
    private func wait(seconds: Double, alive: Bool) async throws(HTTPError) {
        var left = seconds
        while left > 0 {
            if alive { buffer.noteAlive() }
            let slice = min(left, 1)
            do { try await Task.sleep(for: .milliseconds(Int(slice * 1000))) } catch { throw .cancelled }
            left -= slice
        }
        if alive { buffer.noteAlive() }
    }

    private func parse(_ body: String, url: String) throws(HTTPError) -> HLSPlaylist {
        do { return try HLSPlaylist(body: body, url: url) } catch { throw .other("\(error)") }
    }

    private func text(of url: String, http: HTTPClient) async throws(HTTPError) -> String {
        String(decoding: try await body(of: url, http: http), as: UTF8.self)
    }

    private func body(of url: String, http: HTTPClient) async throws(HTTPError) -> [UInt8] {
        let collected = Mutex<[UInt8]>([])
        let request = HTTPRequest(url: url, headers: station.headers, timeout: 30, stallTimeout: station.stallSeconds)
        _ = try await http.stream(request, onHeaders: { _, _ in nil }, onBody: { bytes in
            collected.withLock { body in
                guard body.count + bytes.count <= Self.maxBodyBytes else { return false }
                body.append(contentsOf: bytes)
                return true
            }
        })
        return collected.withLock { $0 }
    }

}
