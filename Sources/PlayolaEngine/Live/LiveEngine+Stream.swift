import PlayolaDecoding
import PlayolaMixer
import PlayolaSupport

/// The decode thread's hold on the stream: its decoder and the voice filling its jitter buffer, then sounding.
struct StreamFeed {
    var connection: (any StreamSource)?
    var decoder: (any StreamDecoder)?
    var filling: StreamVoice?
    var sounding: StreamVoice?
    var failed = false
}

/// The decode thread's side of a stream (`setStream`).
extension LiveEngine {
    /// Follows `setStream`: fades out a replaced stream's voice; for the current one, makes its decoder once
    /// the format is known, fills a voice's ring up to the prebuffer, then places it at `frame`.
    func serviceStream(_ feed: inout StreamFeed, at frame: Int64) {
        let wanted = shared.withLock { $0.stream }
        if feed.connection !== wanted {
            feed.sounding?.fadeOutRequested.store(true, ordering: .releasing)
            feed = StreamFeed(connection: wanted)
        }
        guard let connection = wanted, !feed.failed else { return }
        if let voice = feed.sounding {
            if let failure = voice.pipeline.failure { fail(&feed, "\(failure)") }
            return
        }
        do throws(AudioDecoderError) {
            if feed.decoder == nil { feed.decoder = try connection.makeDecoder() }
            guard let decoder = feed.decoder, try decoder.prepare() else { return }
            if feed.filling == nil {
                feed.filling = try StreamVoice(
                    url: connection.url, decoder: decoder, mixRate: mixRate, ringSeconds: connection.maxBufferSeconds,
                    rebufferSeconds: connection.prebufferSeconds, clockHold: clockHold)
            }
            let voice = feed.filling!
            voice.fill()
            if let failure = voice.pipeline.failure { throw failure }
            guard voice.ring.availableToRead >= voice.rebufferFrames || voice.pipeline.isExhausted else { return }
            voice.startFrame = frame
            guard slots.add(.stream(voice)) else { return fail(&feed, "too many voices") }
            feed.sounding = voice
            feed.filling = nil
            connection.markSounding()
        } catch {
            fail(&feed, "\(error)")
        }
    }

    /// The stream's voice in the slots: decode whatever has arrived; retire it once silent or played out.
    /// Returns how its buffer is held, nil once retired.
    func service(_ voice: StreamVoice, slot index: Int) -> StreamHold? {
        if voice.isSilenced.load(ordering: .acquiring) || voice.isPlayedOut {
            slots.retire(index)
            return nil
        }
        voice.fill()
        voice.holdLevel(at: monotonicSeconds())
        return StreamHold(bufferSeconds: voice.drift.level,
                          correctionPPM: voice.drift.target == nil ? nil : voice.drift.correction * 1e6)
    }

    /// A stream that was playing belongs to the past once its device went away: its connection is given up.
    func abandon(_ feed: inout StreamFeed) {
        guard feed.filling != nil || feed.sounding != nil else { return }
        feed.connection?.fail("the audio device went away")
        feed = StreamFeed(connection: feed.connection, failed: true)
    }

    private func fail(_ feed: inout StreamFeed, _ reason: String) {
        feed.connection?.fail(reason)
        feed.sounding?.fadeOutRequested.store(true, ordering: .releasing)
        feed = StreamFeed(connection: feed.connection, failed: true)
    }
}
