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
    let budget: StreamBudget
    /// Titles from the segments' ID3 tags.
    let onTags: @Sendable (StreamTags) -> Void
    /// More than any audio segment or playlist needs.
    static let maxBodyBytes = 16 << 20

    func run(http: HTTPClient, firstBody: [UInt8]) async -> StreamConnection.Outcome {
        do throws(HTTPError) {
            var mediaURL = url
            var body = firstBody
            var playlist = try parse(body, url: url)
            if case .master(let variants, let audio) = playlist {
                guard let chosen = HLSPlaylist.chooseAudio(variants: variants, audio: audio) else {
                    throw .other("\(url): the master playlist has no variant to play")
                }
                mediaURL = chosen
                body = try await self.body(of: mediaURL, http: http)
                playlist = try parse(body, url: mediaURL)
            }
            guard case .media(let media) = playlist else { throw .other("\(mediaURL): a master playlist where a media playlist was expected") }
            return try await follow(HLSMediaWindow(media, body: body, url: mediaURL), http: http)
        } catch {
            return .failed(error)
        }
    }

    private func follow(_ window: HLSMediaWindow, http: HTTPClient) async throws(HTTPError) -> StreamConnection.Outcome {
        var lastGrowth = monotonicSeconds()
        var demuxer = SegmentDemuxer(onTags: onTags)
        let url = window.url
        while true {
            for segment in window.pending {
                if Task.isCancelled { throw .cancelled }
                if let bytes = await fetchSegment(segment, http: http) {
                    if segment.isDiscontinuity { demuxer.discontinuity() }
                    let initSection = try await initSection(segment, demuxer: demuxer, http: http, holding: bytes.count)
                    let audio: [UInt8]
                    do throws(AudioDecoderError) {
                        let began = threadCPUSeconds()
                        defer { budget.charge(since: began) }
                        audio = try demuxer.audio(of: bytes, initSection: initSection, url: segment.url)
                    } catch {
                        throw .other("\(error)")
                    }
                    try await deliver(audio)
                }
                window.played(segment)
                lastGrowth = monotonicSeconds()
            }
            if window.media.hasEnded { return .ended }
            let stallLimit = max(station.stallSeconds, 3 * window.media.targetDuration)
            try await wait(seconds: window.reloadDelay, alive: monotonicSeconds() - lastGrowth < stallLimit)
            if monotonicSeconds() - lastGrowth >= stallLimit {
                throw .timeout("\(url): the playlist has not grown for \(Int(stallLimit)) s")
            }
            let reloaded = try await body(of: url, http: http)
            do throws(HLSPlaylistError) {
                let began = threadCPUSeconds()
                defer { budget.charge(since: began) }
                try window.reload(reloaded)
            } catch {
                throw .other("\(error)")
            }
            if let reason = budget.exceeded { throw .refused(reason) }
        }
    }

    /// A segment's bytes, tried twice; nil when both fail (the segment is passed over).
    private func fetchSegment(_ segment: HLSPlaylist.Segment, http: HTTPClient) async -> [UInt8]? {
        for attempt in 0..<2 {
            if let bytes = try? await body(of: segment.url, http: http) { return bytes }
            if budget.exceeded != nil { return nil }
            if attempt == 0 { try? await Task.sleep(for: .milliseconds(500)) }
        }
        return nil
    }

    private func initSection(
        _ segment: HLSPlaylist.Segment, demuxer: SegmentDemuxer, http: HTTPClient, holding: Int
    ) async throws(HTTPError) -> (url: String, bytes: [UInt8])? {
        guard let url = segment.initSection else { return nil }
        if demuxer.hasInitSection(url) { return nil }
        return (url, try await body(of: url, http: http, holding: holding))
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

    private func parse(_ body: [UInt8], url: String) throws(HTTPError) -> HLSPlaylist {
        do throws(HLSPlaylistError) {
            let began = threadCPUSeconds()
            defer { budget.charge(since: began) }
            return try HLSPlaylist(bytes: body, url: url)
        } catch {
            throw .other("\(error)")
        }
    }

    /// The body of `url`, at most `maxBodyBytes`, and at most what leaves the stream within its budget with
    /// the `holding` bytes it already holds. Bytes arriving tell the stall watch the source is alive.
    private func body(of url: String, http: HTTPClient, holding: Int = 0) async throws(HTTPError) -> [UInt8] {
        let collected = Mutex<(body: [UInt8], overBudget: Bool)>(([], false))
        let request = HTTPRequest(url: url, headers: station.headers, timeout: 30, stallTimeout: station.stallSeconds)
        let buffer = self.buffer
        do {
            _ = try await http.stream(request, onHeaders: { _, _ in nil }, onBody: { bytes in
                buffer.noteAlive()
                return collected.withLock { collected in
                    guard collected.body.count + bytes.count <= Self.maxBodyBytes else { return false }
                    guard holding + collected.body.count + bytes.count <= StreamBudget.maxHeldBytes else {
                        collected.overBudget = true
                        return false
                    }
                    collected.body.append(contentsOf: bytes)
                    return true
                }
            })
        } catch {
            let (count, overBudget) = collected.withLock { ($0.body.count, $0.overBudget) }
            if overBudget { throw .refused(budget.overHeld(holding + count)) }
            throw error
        }
        return collected.withLock { $0.body }
    }
}
