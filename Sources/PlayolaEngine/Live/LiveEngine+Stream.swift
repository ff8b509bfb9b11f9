import FoundationEssentials
import PlayolaDecoding
import PlayolaMixer
import PlayolaModel

/// The decode thread's hold on the stream: its decoder and the voice filling its jitter buffer, then sounding.
struct StreamVoice {
    var connection: (any LiveSource)?
    var decoder: (any StreamDecoder)?
    var filling: Voice?
    var sounding: Voice?
    var failed = false
}

/// The decode thread's side of a stream (`setStream`).
extension LiveEngine {
    /// Follows `setStream`: fades out a replaced stream's voice; for the current one, makes its decoder once
    /// the format is known, fills a voice's ring up to the prebuffer, then places it at `frame`.
    func serviceStream(_ stream: inout StreamVoice, at frame: Int64) {
        let wanted = shared.withLock { $0.stream }
        if stream.connection !== wanted {
            stream.sounding?.fadeOutRequested.store(true, ordering: .releasing)
            stream = StreamVoice(connection: wanted)
        }
        guard let connection = wanted, !stream.failed else { return }
        if let voice = stream.sounding {
            if let failure = voice.failure { fail(&stream, "\(failure)") }
            return
        }
        do throws(AudioDecoderError) {
            if stream.decoder == nil { stream.decoder = try connection.makeDecoder() }
            guard let decoder = stream.decoder, try decoder.prepare() else { return }
            if stream.filling == nil {
                stream.filling = try Voice(
                    spin: Self.streamSpin(connection), file: connection.url, decoder: decoder, mixRate: mixRate,
                    startFrame: 0, joinFrame: 0, ringSeconds: connection.maxBufferSeconds,
                    rebufferSeconds: connection.prebufferSeconds)
            }
            let voice = stream.filling!
            voice.fill(upTo: .max)
            if let failure = voice.failure { throw failure }
            guard voice.ring.availableToRead >= voice.rebufferFrames || voice.isExhausted else { return }
            voice.startFrame = frame
            guard slots.add(voice) else { return fail(&stream, "too many voices") }
            stream.sounding = voice
            stream.filling = nil
            connection.markSounding()
        } catch {
            fail(&stream, "\(error)")
        }
    }

    private func fail(_ stream: inout StreamVoice, _ reason: String) {
        stream.connection?.fail(reason)
        stream.sounding?.fadeOutRequested.store(true, ordering: .releasing)
        stream = StreamVoice(connection: stream.connection, failed: true)
    }

    /// The voice's spin: a stream has no airtime or fades, only a name (the player publishes the titles).
    private static func streamSpin(_ connection: any LiveSource) -> Spin {
        Spin(id: "stream:" + connection.url, stationID: connection.name, airtime: Date(), startingVolume: 1, fades: [],
             audioBlock: AudioBlock(id: connection.url, title: connection.name, artist: "", durationMS: 0,
                                    endOfMessageMS: 0, downloadURL: nil))
    }
}
