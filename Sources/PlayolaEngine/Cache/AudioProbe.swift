import Glibc
import PlayolaDecoding
import PlayolaSupport
import Synchronization

/// Checks that a file plays before it may enter (or stay in) the cache: the decoder opens it and decodes
/// its first second. On a thread of its own with a deadline, so a file that makes a decoder spin wedges
/// neither the downloader nor the cooperative pool: past the deadline the file counts as bad and the
/// thread is left to finish by itself. At most `maxStuck` such threads are tolerated; after that every
/// probe fails at once (`stuck`) rather than stacking up threads that each pin a core.
public struct AudioProbe: Sendable {
    public var deadline: Double
    public static let maxStuck = 2
    /// Decoding this much of the start is enough to meet every table and header the decoder reads first.
    static let probeSeconds = 1
    private static let stuck = Atomic<Int>(0)

    public init(deadline: Double = 5) { self.deadline = deadline }

    /// Probes still running past their deadline.
    public static var stuckProbes: Int { stuck.load(ordering: .relaxed) }

    public func check(_ path: String) async -> ProbeFailure? {
        guard Self.stuck.load(ordering: .relaxed) < Self.maxStuck else { return .stuck(path: path) }
        let outcome = OneShot<ProbeFailure?>()
        let deadline = self.deadline
        return await withCheckedContinuation { continuation in
            outcome.onResult { continuation.resume(returning: $0) }
            startThread(named: "playola-probe") {
                let result = Self.decodeStart(of: path)
                // Lost the race: the deadline had already counted this thread as stuck.
                if !outcome.deliver(result) { Self.stuck.subtract(1, ordering: .relaxed) }
            }
            Task {
                try? await Task.sleep(for: .seconds(deadline))
                // Counted before the caller hears of it; given back if the decoder finished first after all.
                Self.stuck.add(1, ordering: .relaxed)
                if !outcome.deliver(.timedOut(path: path, seconds: deadline)) { Self.stuck.subtract(1, ordering: .relaxed) }
            }
        }
    }

    /// Opens `path` and decodes up to `probeSeconds`; nil when that worked and gave sound.
    static func decodeStart(of path: String) -> ProbeFailure? {
        do {
            let decoder = try openAudioFile(path: path)
            // Numbers from the file, checked before they size the buffer below (the decoders check them at
            // open too; this keeps the buffer safe whatever a decoder lets through).
            try DecodeLimits.checkFormat(rate: decoder.sampleRate, channels: decoder.channelCount, path: path)
            let chunk = 4096
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * decoder.channelCount)
            defer { buffer.deallocate() }
            var frames = 0
            while frames < decoder.sampleRate * probeSeconds {
                let got = try decoder.read(into: buffer, maxFrames: chunk)
                guard got > 0 else { break }
                frames += got
            }
            return frames > 0 ? nil : .empty(path: path)
        } catch {
            return .decoder(error)
        }
    }
}

/// Why a file failed its probe; every case names the file.
public enum ProbeFailure: Error, Equatable, CustomStringConvertible {
    case decoder(AudioDecoderError)
    case empty(path: String)
    case timedOut(path: String, seconds: Double)
    case stuck(path: String)

    public var description: String {
        switch self {
        case .decoder(let error): "\(error)"
        case .empty(let path): "\(path): no audio frames"
        case .timedOut(let path, let seconds): "\(path): decoding its first second took more than \(seconds) s"
        case .stuck(let path): "\(path): not checked, \(AudioProbe.maxStuck) earlier checks are still stuck in the decoder"
        }
    }
}

/// The first of several racing results wins; the rest are dropped.
final class OneShot<Value: Sendable>: Sendable {
    private let state = Mutex<(done: Bool, receiver: (@Sendable (Value) -> Void)?)>((false, nil))

    func onResult(_ receiver: @escaping @Sendable (Value) -> Void) { state.withLock { $0.receiver = receiver } }

    /// True when `value` was the first, and went to the receiver.
    @discardableResult
    func deliver(_ value: Value) -> Bool {
        let receiver = state.withLock { state -> (@Sendable (Value) -> Void)?? in
            guard !state.done else { return nil }
            state.done = true
            return .some(state.receiver)
        }
        guard let receiver else { return false }
        receiver?(value)
        return true
    }
}
