import CFAAD

/// AAC and HE-AAC from an ADTS stream through libfaad2. We frame the stream ourselves (faad2 wants whole
/// frames): a frame header must be valid and agree with the one that follows, else the decoder slides
/// one byte on — so garbage, a cut or a stream joined mid-frame resyncs instead of stopping.
public final class ADTSStreamDecoder: StreamDecoder {
    public private(set) var sampleRate = 0
    public private(set) var channelCount = 0
    public var hasEnded: Bool { input.hasEnded }
    private let input: StreamInput
    private let name: String
    private var faad: FAADHandle?
    /// Bytes read from the buffer and not yet decoded, from `start`.
    private var pending: [UInt8] = []
    private var start = 0
    /// The last frame's samples not yet read.
    private var decoded = DecodedFrames()
    private var skippedWithoutFrame = 0
    private var failedInARow = 0
    private static let searchLimit = 64 << 10

    public init(buffer: StreamBuffer, name: String) throws(AudioDecoderError) {
        input = StreamInput(buffer)
        self.name = name
    }

    public func prepare() throws(AudioDecoderError) -> Bool {
        if sampleRate > 0 { return true }
        // The format is what the first decoded frame says (HE-AAC doubles the core rate, PS makes stereo).
        guard try decodeFrame() else { return false }
        return sampleRate > 0
    }

    public func read(into destination: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        var written = 0
        while written < maxFrames {
            if decoded.count == 0 {
                guard try decodeFrame() else { break }
                continue
            }
            written += decoded.move(upTo: maxFrames - written, into: destination + written * channelCount)
        }
        return written
    }

    /// Decodes the next whole frame into `decoded`. False when no whole frame has arrived yet.
    private func decodeFrame() throws(AudioDecoderError) -> Bool {
        while true {
            guard let length = try nextFrameLength() else { return false }
            let frame = start
            start += length
            let faad = try existingOrNewDecoder(frame: frame, length: length)
            guard let decodedFrame = faad.decode(&pending, at: frame, length: length) else {
                failedInARow += 1
                if failedInARow > 50 {
                    throw .decodeFailed(path: name, reason: faad.lastError)
                }
                continue // a damaged frame: drop it, the next one decodes
            }
            failedInARow = 0
            if sampleRate == 0 {
                sampleRate = decodedFrame.sampleRate
                channelCount = min(decodedFrame.channels, 2)
            } else if decodedFrame.sampleRate != sampleRate {
                throw .unsupported(path: name, reason: "the stream changed rate to \(decodedFrame.sampleRate) Hz")
            }
            if decodedFrame.channels != channelCount { try keepTwoChannels(of: decodedFrame) }
            decoded.hold(decodedFrame.samples, frames: decodedFrame.frames, channels: channelCount)
            return true
        }
    }

    /// The length of the frame at `start` once it (and the next header, which confirms it) has arrived,
    /// sliding past anything that is not a frame. Nil until there is enough.
    private func nextFrameLength() throws(AudioDecoderError) -> Int? {
        while true {
            if pending.count - start < 7 + 7 {
                if start > 0 {
                    pending.removeFirst(start)
                    start = 0
                }
                guard readMore() else { return nil }
                continue
            }
            if let length = ADTSHeader(pending, at: start)?.frameLength {
                if pending.count - start < length + 7 {
                    guard pending.count - start <= Self.searchLimit else { throw notADTS() }
                    if input.endIfDrained() { return nil } // the last, cut frame goes
                    guard readMore() else { return nil }
                    continue
                }
                if ADTSHeader(pending, at: start + length) != nil {
                    skippedWithoutFrame = 0
                    return length
                }
            }
            start += 1
            skippedWithoutFrame += 1
            if sampleRate == 0 && skippedWithoutFrame > Self.searchLimit { throw notADTS() }
        }
    }

    /// Appends what has arrived to `pending`; false when nothing had.
    private func readMore() -> Bool {
        let bytes = input.read()
        pending.append(contentsOf: bytes)
        return !bytes.isEmpty
    }

    private func notADTS() -> AudioDecoderError {
        .invalid(path: name, reason: "no AAC (ADTS) frame in the first \(Self.searchLimit >> 10) KiB")
    }

    /// The decoder, set up from the first frame the first time.
    private func existingOrNewDecoder(frame: Int, length: Int) throws(AudioDecoderError) -> FAADHandle {
        if let faad { return faad }
        let faad = try FAADHandle(name: name)
        try faad.initialize(frameIn: &pending, at: frame, length: length)
        self.faad = faad
        return faad
    }

    /// faad2 down-mixes 5.1 to stereo itself; what is left to fold is the first two of any other count.
    private func keepTwoChannels(of frame: FAADHandle.Frame) throws(AudioDecoderError) {
        let channels = frame.channels, samples = frame.samples
        guard channels > channelCount else {
            throw .unsupported(path: name, reason: "the stream changed from \(channelCount) to \(channels) channels")
        }
        for index in 0..<frame.frames {
            samples[index * channelCount] = samples[index * channels]
            if channelCount == 2 { samples[index * 2 + 1] = samples[index * channels + 1] }
        }
    }
}
