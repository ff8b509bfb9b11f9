import FoundationEssentials
import PlayolaModel
import PlayolaNetwork
import PlayolaStreaming
import PlayolaSupport

/// Internet radio: connect, play once the jitter buffer is full, and when the connection ends — the server
/// closed it, it stalled, the network failed, the bytes were not audio — drop it with its buffer and make a
/// new one after a capped, jittered backoff. Forever, for as long as the stream is the station.
extension StationPlayer {
    func runStream(_ station: StreamStation, generation: Int) async {
        var attempt = 0
        while self.generation == generation, !Task.isCancelled {
            let began = monotonicSeconds()
            let problem = await connect(station, generation: generation)
            guard self.generation == generation, !Task.isCancelled else { return }
            engine.setStream(nil)
            // A connection that played for a while was a success: the next failure starts the backoff over.
            attempt = monotonicSeconds() - began > 30 ? 1 : attempt + 1
            let delay = station.backoff(attempt: attempt, jitter: Double.random(in: 0...1))
            notice("stream \(station.name): \(problem); reconnecting in \((delay * 10).rounded() / 10) s")
            streamInfo?.problem = problem
            networkFailed(problem)
            if state != .loading(0) { publish(.loading(0)) }
            try? await Task.sleep(for: .seconds(delay))
        }
    }

    /// One attempt: the station's URL, or the entries of its playlist in order until one plays. Returns why
    /// the attempt ended.
    private func connect(_ station: StreamStation, generation: Int) async -> String {
        var candidates = [station.url]
        var expanded = false
        var problem = "no stream"
        var index = 0
        while index < candidates.count, self.generation == generation {
            let url = candidates[index]
            index += 1
            let (outcome, sounded) = await listen(url, station: station, generation: generation)
            if case .playlist(let body, let type) = outcome {
                guard !expanded else {
                    problem = "\(url): a playlist inside a playlist"
                    continue
                }
                expanded = true
                do throws(StreamPlaylistError) {
                    let entries = try StreamPlaylist.entries(body: body, contentType: type, url: url) ?? []
                    candidates.insert(contentsOf: entries, at: index)
                    problem = entries.isEmpty ? "\(url): not a playlist" : problem
                } catch {
                    problem = "\(error)"
                }
                continue
            }
            problem = outcome.map { "\($0)" } ?? "cancelled"
            if sounded { break } // it played: the next attempt starts again from the first entry
        }
        return problem
    }

    /// Plays `url` until its connection ends. The outcome is nil when a newer command took over.
    private func listen(
        _ url: String, station: StreamStation, generation: Int
    ) async -> (outcome: StreamConnection.Outcome?, sounded: Bool) {
        let connection = StreamConnection(url: url, station: station)
        let http = api.http
        connection.watch(waker)
        let transfer = Task { await connection.run(http: http) }
        engine.setStream(connection)
        var sounded = false
        var problem: StreamConnection.Outcome?
        var lookedAt = monotonicSeconds()
        while problem == nil {
            // Looks when the connection says something changed (headers, a title, sounding, a failure, the
            // end), or when the stream could have stalled; not at a pace (each look wakes the Swift pool and
            // its timer thread: bench/PROFILE.md). At most two looks a second, so a server that changes its
            // title at every block is announced twice a second, not at every block.
            if !connection.takeChange() {
                await sleepUnlessWoken(for: connection.buffer.lastArrival + station.stallSeconds + 0.1 - monotonicSeconds())
            }
            let soonest = lookedAt + 0.5 - monotonicSeconds()
            if soonest > 0 { try? await Task.sleep(for: .seconds(soonest)) }
            lookedAt = monotonicSeconds()
            connection.takeChange() // what changes from here on is told again
            guard self.generation == generation, !Task.isCancelled else {
                transfer.cancel()
                _ = await transfer.value
                return (nil, sounded)
            }
            // The connection's own ending says more than what the decoder made of the bytes it left.
            if connection.hasFinished.load(ordering: .acquiring) { break }
            if let headers = connection.headers, streamInfo?.url != url || streamInfo?.format == nil {
                adopt(headers, url: url)
                networkReached()
            }
            // Taken at this loop's pace: however fast a server changes its title, at most two a second.
            if let title = connection.takeTitle() { streamTitle(title, generation: generation) }
            if !sounded, connection.isSounding.load(ordering: .acquiring) {
                sounded = true
                streamSoundingSince = Date()
                streamInfo?.problem = nil
                publish(.playing(.stream(nowPlaying(station))))
            }
            if let failure = connection.failure {
                problem = .failed(.refused(failure))
            } else if monotonicSeconds() - connection.buffer.lastArrival > station.stallSeconds {
                problem = .failed(.timeout("\(url): no data for \(Int(station.stallSeconds)) s"))
            }
        }
        if let problem {
            transfer.cancel()
            _ = await transfer.value
            return (problem, sounded)
        }
        let ended = await transfer.value
        if ended == .ended, let failure = connection.failure { return (.failed(.refused(failure)), sounded) }
        return (ended, sounded)
    }

    private func adopt(_ headers: ICYHeaders, url: String) {
        var info = streamInfo ?? StreamInfo(url: url)
        info.url = url
        info.name = headers.name
        info.genre = headers.genre
        info.bitrate = headers.bitrate
        info.format = headers.format
        streamInfo = info
    }

    /// A new `StreamTitle`: into the stream's info and, when playing, the state (so status, log and events see it).
    private func streamTitle(_ metadata: ICYMetadata, generation: Int) {
        guard self.generation == generation, var info = streamInfo else { return }
        info.title = metadata.title
        info.artist = metadata.artist
        info.song = metadata.song
        streamInfo = info
        if case .playing = state, case .stream(let station)? = self.station {
            publish(.playing(.stream(nowPlaying(station))))
        }
    }

    /// The state's now playing for a stream: the title it announces, the station's name when it announces none.
    func nowPlaying(_ station: StreamStation) -> Announcement {
        let info = streamInfo
        return Announcement(station: station.name, title: info?.song ?? info?.title ?? info?.name ?? station.name,
                           artist: info?.artist ?? "", since: streamSoundingSince)
    }
}
