import FoundationEssentials
import Glibc

/// Brings spins' audio files into the cache: one download per URL however many ask, progress, retries
/// with capped exponential backoff that resume the partial file with a Range request, and validation
/// (the length the server announced, and that the file decodes) before the file is admitted.
public actor AudioDownloader {
    public let http: HTTPClient
    public let cache: AudioCache
    public let attempts: Int
    public let backoff: (first: Double, cap: Double)
    /// A download that receives nothing for this long is dropped and retried (resuming).
    public let stallTimeout: Double
    private var downloads: [String: Task<Result<String, DownloadError>, Never>] = [:]
    private let onProblem: @Sendable (String) -> Void

    public init(
        http: HTTPClient, cache: AudioCache, attempts: Int = 5, backoff: (first: Double, cap: Double) = (1, 30),
        stallTimeout: Double = 15, onProblem: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.stallTimeout = stallTimeout
        self.http = http
        self.cache = cache
        self.attempts = attempts
        self.backoff = backoff
        self.onProblem = onProblem
    }

    /// The cached file for `url`, downloading it if needed. `progress` gets 0…1 when the length is known.
    public func file(for url: String, progress: (@Sendable (Double) -> Void)? = nil) async -> Result<String, DownloadError> {
        if url.hasPrefix("file://") {
            // A local folder's file: nothing to download or cache.
            let path = String(url.dropFirst(7))
            guard access(path, R_OK) == 0 else { return .failure(.refused(url, String(cString: strerror(errno)))) }
            progress?(1)
            return .success(path)
        }
        if let path = cache.lookup(url) {
            progress?(1)
            return .success(path)
        }
        if let running = downloads[url] { return await running.value }
        let task = Task { await self.download(url, progress: progress) }
        downloads[url] = task
        let result = await task.value
        downloads[url] = nil
        return result
    }

    /// Cancels every download whose URL is not in `keep` (a stop, or a station change).
    public func cancel(except keep: Set<String> = []) {
        for (url, task) in downloads where !keep.contains(url) { task.cancel() }
    }

    private func download(_ url: String, progress: (@Sendable (Double) -> Void)?) async -> Result<String, DownloadError> {
        var attempt = 0
        while true {
            let outcome = await downloadOnce(url, progress: progress)
            switch outcome {
            case .success: return outcome
            case .failure(let error):
                attempt += 1
                guard error.isTransient, attempt < attempts, !Task.isCancelled else { return outcome }
                let wait = min(backoff.cap, backoff.first * Double(1 << min(attempt - 1, 16)))
                onProblem("\(error); retrying in \(wait) s (attempt \(attempt + 1) of \(attempts))")
                try? await Task.sleep(for: .seconds(wait))
                if Task.isCancelled { return .failure(.cancelled(url)) }
            }
        }
    }

    private func downloadOnce(_ url: String, progress: (@Sendable (Double) -> Void)?) async -> Result<String, DownloadError> {
        let reservation: CacheReservation
        do {
            reservation = try cache.reserve(url, bytes: 1)
        } catch {
            return .failure(.cache(url, error))
        }
        let fd = open(reservation.temporaryPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            cache.abandon(reservation)
            return .failure(.cache(url, .io(path: reservation.temporaryPath, reason: String(cString: strerror(errno)))))
        }
        // Closed here rather than by a `defer`: Swift 6.0.3 (Debian trixie's) aborts compiling a `defer` in
        // this actor-isolated async function (TransferNonSendable, SILIsolationInfo.cpp:880).
        let outcome = await fetch(url, into: fd, reservation: reservation, progress: progress)
        close(fd)
        return outcome
    }

    private func fetch(
        _ url: String, into fd: Int32, reservation: CacheReservation, progress: (@Sendable (Double) -> Void)?
    ) async -> Result<String, DownloadError> {
        let offset = reservation.existingBytes
        let cache = self.cache
        let request = HTTPRequest(url: url, timeout: 0, stallTimeout: stallTimeout, resumeFrom: offset)
        let expected = ExpectedLength()
        let response: HTTPResponse
        do {
            response = try await http.download(request, into: fd, onHeaders: { status, headers in
                // Room for the whole file is made before its first byte is written.
                guard let total = Self.totalLength(status: status, headers: headers, offset: offset) else {
                    return status == 200 && offset > 0
                        ? "the server ignored the Range request" : "no Content-Length in the response (HTTP \(status), \(headers.map(\.name)))"
                }
                expected.value = total
                do throws(CacheError) { try cache.grow(reservation, to: total) } catch {
                    expected.cacheError = error
                    return "\(error)"
                }
                return nil
            }, progress: { received, _ in
                if let total = expected.value, total > 0 { progress?(Double(offset + received) / Double(total)) }
            })
        } catch .cancelled {
            return .failure(.cancelled(url))
        } catch .refused(let reason) where reason == "the server ignored the Range request" {
            cache.abandon(reservation) // start again from the first byte
            return .failure(.http(url, .truncated(reason)))
        } catch .refused(let reason) {
            cache.abandon(reservation)
            if let cacheError = expected.cacheError { return .failure(.cache(url, cacheError)) }
            return .failure(.refused(url, reason))
        } catch {
            if case .status = error { cache.abandon(reservation) } // keep a partial file only to resume it
            return .failure(.http(url, error))
        }
        var info = stat()
        fstat(fd, &info)
        if let total = expected.value, Int64(info.st_size) != total {
            return .failure(.http(url, .truncated("\(url): \(info.st_size) of \(total) bytes")))
        }
        _ = response
        let path: String
        do {
            path = try cache.commit(reservation)
        } catch {
            cache.abandon(reservation)
            return .failure(.cache(url, error))
        }
        do {
            let decoder = try openAudioFile(path: path)
            let probe = UnsafeMutablePointer<Float>.allocate(capacity: 4096 * max(2, decoder.channelCount))
            let decoded = Result { () throws(AudioDecoderError) in try decoder.read(into: probe, maxFrames: 4096) }
            probe.deallocate() // not a `defer`, as above
            _ = try decoded.get()
        } catch {
            cache.remove(url)
            return .failure(.notAudio(url, error))
        }
        progress?(1)
        return .success(path)
    }

    /// The whole file's length from a 200's Content-Length or a 206's Content-Range.
    static func totalLength(status: Int, headers: [(name: String, value: String)], offset: Int64) -> Int64? {
        func header(_ name: String) -> String? { headers.last { $0.name == name }?.value }
        if status == 206, let range = header("content-range"), let slash = range.lastIndex(of: "/") {
            return Int64(range[range.index(after: slash)...].trimmingWhitespaceSubstring())
        }
        guard status == 200, offset == 0, let length = header("content-length") else { return nil }
        return Int64(length)
    }
}

/// The length learnt from the headers on the network thread, read by the progress callback there too.
// @unchecked Sendable: written once by the headers callback and read by later callbacks of the same
// transfer, all on the network thread.
private final class ExpectedLength: @unchecked Sendable {
    var value: Int64?
    var cacheError: CacheError?
}

public enum DownloadError: Error, Equatable, CustomStringConvertible {
    case http(String, HTTPError)
    case cache(String, CacheError)
    case notAudio(String, AudioDecoderError)
    case refused(String, String)
    case cancelled(String)

    public var isTransient: Bool {
        if case .http(_, let error) = self { return error.isTransient }
        return false
    }

    public var description: String {
        switch self {
        case .http(let url, let error): "download of \(url) failed: \(error)"
        case .cache(let url, let error): "cannot cache \(url): \(error)"
        case .notAudio(let url, let error): "\(url) is not playable audio: \(error)"
        case .refused(let url, let reason): "download of \(url) refused: \(reason)"
        case .cancelled(let url): "download of \(url) cancelled"
        }
    }
}

extension Substring {
    func trimmingWhitespaceSubstring() -> String { String(self).trimmingWhitespace() }
}
