import CFAAD
import PlayolaSupport

/// AAC (LC and HE) through libfaad2, fed access units from an `AACTrack` read out of MP4 or ADTS.
/// Seeks restart the decoder two units early, so the overlap state is rebuilt before the target.
public final class AACDecoder: AudioDecoder {
    public let sampleRate: Int
    public let channelCount: Int
    public let frameCount: Int64?
    private let faad: FAADHandle
    private let file: FileDescriptor
    private let path: String
    private let track: AACTrack
    /// Output frames per access unit and the priming, in output frames.
    private let unitFrames: Int64
    private let priming: Int64
    private let endFrame: Int64?
    private var window: UnitWindow
    private var nextUnit = 0
    /// Absolute output frame (priming included) of the next frame `read` returns.
    private var position: Int64
    /// Decoded frames of the current unit not yet returned.
    private var decoded = DecodedFrames()
    /// What a damaged unit decodes to.
    private let silenceBuffer: UnsafeMutablePointer<Float>
    private static let prerollUnits = 2
    /// Damaged units in a row after which the file is junk rather than damaged: each would be a unit of silence,
    /// and a file of a million tiny ones would play hours of it.
    private static let maxDamagedInARow = 50
    private var damagedInARow = 0

    init(track: AACTrack, path: String) throws(AudioDecoderError) {
        self.path = path
        self.track = track
        guard !track.unitSizes.isEmpty else {
            if track.firstMissingUnit != nil { throw .truncated(path: path, atFrame: 0) }
            throw .invalid(path: path, reason: "no audio frames")
        }
        let faad = try FAADHandle(name: path)
        let file = try FileDescriptor.reading(path)
        // The readers bound unit sizes (stsz, or ADTS's 13 bits), so this is at most 64 KiB.
        let largestUnit = Int(min(track.unitSizes.max() ?? 0, DecodeLimits.maxUnitBytes))
        var buffer = [UInt8](repeating: 0, count: largestUnit + UnitWindow.padding)
        let rate: Int, unitFrames: Int64
        do throws(AudioDecoderError) {
            if let config = track.decoderConfig {
                try faad.initialize(config: config)
            } else {
                let size = Int(min(track.unitSizes[0], DecodeLimits.maxUnitBytes))
                let got = buffer.withUnsafeMutableBytes { try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<size]), at: track.unitOffsets[0]) }
                try faad.initialize(frameIn: &buffer, at: 0, length: got ?? 0)
            }
            try DecodeLimits.checkFormat(rate: faad.sampleRate, channels: min(faad.channelCount, 2), path: path) // two are kept
            rate = faad.sampleRate
            // The unit's length in output frames, from the container's timescale: both come from the file.
            unitFrames = track.timescale > 0 ? track.unitDuration.scaled(by: Int64(rate), over: track.timescale) : 0
            guard DecodeLimits.unitFrames.contains(unitFrames) else {
                throw .malformed(path: path, field: "timescale", problem: "an access unit of \(track.unitDuration) ticks at \(track.timescale) per second is \(unitFrames) frames at \(rate) Hz, not \(DecodeLimits.unitFrames.lowerBound)–\(DecodeLimits.unitFrames.upperBound)")
            }
        } catch {
            file.close()
            throw error
        }
        self.file = file
        self.faad = faad
        window = UnitWindow(largestUnit: largestUnit)
        sampleRate = rate
        channelCount = min(faad.channelCount, 2)
        self.unitFrames = unitFrames
        // Priming and valid duration are clamped to the track by the readers; the conversions saturate.
        let priming = track.priming.scaled(by: Int64(rate), over: track.timescale)
        self.priming = priming
        let valid = track.validDuration.map { $0.scaled(by: Int64(rate), over: track.timescale) }
        endFrame = valid.map { priming.addingReportingOverflow($0).overflow ? .max : priming + $0 }
        frameCount = valid.flatMap(DecodeLimits.announcedFrames)
        position = 0
        silenceBuffer = .allocate(capacity: Int(unitFrames) * 2)
        silenceBuffer.initialize(repeating: 0, count: Int(unitFrames) * 2)
        try seek(toFrame: 0)
    }

    deinit {
        file.close()
        silenceBuffer.deallocate()
    }

    public func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int {
        var written = 0
        while written < maxFrames {
            if let endFrame, position >= endFrame { break }
            if decoded.count == 0 {
                guard try decodeNextUnit() else { break }
                continue
            }
            var limit = maxFrames - written
            if let endFrame { limit = Int(min(Int64(limit), endFrame - position)) }
            let count = decoded.move(upTo: limit, into: buffer + written * channelCount)
            position += Int64(count)
            written += count
        }
        return written
    }

    public func seek(toFrame frame: Int64) throws(AudioDecoderError) {
        let target = min(max(0, frame), Int64.max - priming) + priming
        let unit = Int(target / unitFrames)
        nextUnit = max(0, unit - Self.prerollUnits)
        faad.resetAfterSeek(toUnit: nextUnit)
        decoded.removeAll()
        damagedInARow = 0
        position = Int64(nextUnit) * unitFrames
        while position < target {
            if decoded.count == 0 {
                guard try decodeNextUnit() else { return }
                continue
            }
            let skip = Int(min(Int64(decoded.count), target - position))
            decoded.skip(skip)
            position += Int64(skip)
        }
    }

    /// Decodes the next access unit into `pending`. False at the end of the track.
    private func decodeNextUnit() throws(AudioDecoderError) -> Bool {
        if let missing = track.firstMissingUnit, nextUnit >= missing {
            throw .truncated(path: path, atFrame: max(0, position - priming))
        }
        guard nextUnit < track.unitSizes.count else { return false }
        let size = Int(track.unitSizes[nextUnit])
        guard size <= DecodeLimits.maxUnitBytes else { // the readers bound unit sizes; this keeps the read in the window regardless
            throw .malformed(path: path, field: "access unit \(nextUnit)", problem: "\(size) bytes, more than an AAC frame can be")
        }
        guard let at = window.locate(offset: track.unitOffsets[nextUnit], size: size, in: file) else {
            throw .truncated(path: path, atFrame: max(0, position - priming))
        }
        nextUnit += 1
        guard let frame = faad.decode(&window.bytes, at: at, length: size) else {
            damagedInARow += 1
            guard damagedInARow <= Self.maxDamagedInARow else {
                throw .decodeFailed(path: path, reason: "\(damagedInARow) damaged AAC frames in a row (faad2: \(faad.lastError))")
            }
            // A damaged unit is one unit of silence, not the end of the song: the decoder resyncs on the next.
            decoded.hold(silence(frames: Int(unitFrames)), frames: Int(unitFrames), channels: channelCount)
            return true
        }
        damagedInARow = 0
        guard frame.channels == channelCount else {
            throw .decodeFailed(path: path, reason: "channel count changed mid-stream")
        }
        decoded.hold(frame.samples, frames: frame.frames, channels: channelCount)
        return true
    }

    private func silence(frames: Int) -> UnsafeMutablePointer<Float> {
        silenceBuffer.update(repeating: 0, count: frames * channelCount)
        return silenceBuffer
    }
}
