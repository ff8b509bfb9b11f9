import Glibc
import PlayolaSupport

/// A source of PCM: one audio file, decoded to interleaved Float32 in the file's own rate and channels.
///
/// Three real implementations (mpg123, faad2 over our MP4/ADTS readers, libsndfile); `openAudioFile`
/// picks one from the file's bytes.
public protocol AudioDecoder: AnyObject {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    /// Frames in the file after priming and padding are removed, when the container says.
    var frameCount: Int64? { get }

    /// Decodes up to `maxFrames` frames into `buffer` (room for `maxFrames * channelCount` floats).
    /// Returns the frames written; 0 only at the end of the file.
    func read(into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) throws(AudioDecoderError) -> Int

    /// Moves to `frame` (in the file's rate, priming excluded) exactly: the next `read` starts with
    /// the sample a continuous decode would have produced there.
    func seek(toFrame frame: Int64) throws(AudioDecoderError)
}

/// Why a file cannot be played; every case names the file.
public enum AudioDecoderError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case unknownFormat(path: String)
    case invalid(path: String, reason: String)
    case unsupported(path: String, reason: String)
    case truncated(path: String, atFrame: Int64)
    case decodeFailed(path: String, reason: String)
    /// A field of the file (an MP4 box, a header value) that is out of range or contradicts the file:
    /// `field` names it as the format does (`stsc`, `mdhd timescale`, `sample rate`).
    case malformed(path: String, field: String, problem: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "\(path): cannot open: \(reason)"
        case .unknownFormat(let path): "\(path): not a known audio format (MP3, AAC/M4A, WAV, FLAC, Ogg)"
        case .invalid(let path, let reason): "\(path): invalid file: \(reason)"
        case .unsupported(let path, let reason): "\(path): unsupported: \(reason)"
        case .truncated(let path, let frame): "\(path): file is truncated (audio stops at frame \(frame))"
        case .decodeFailed(let path, let reason): "\(path): decoding failed: \(reason)"
        case .malformed(let path, let field, let problem): "\(path): invalid file: \(field): \(problem)"
        }
    }
}

extension FileDescriptor {
    /// `path` opened for reading, or the decoder's error naming it.
    static func reading(_ path: String) throws(AudioDecoderError) -> FileDescriptor {
        do { return try .open(path, O_RDONLY) } catch { throw .cannotOpen(path: path, reason: error.description) }
    }
}
