import FoundationEssentials
import Glibc
import PlayolaCache
import PlayolaSupport

/// Brings spins' audio files into the cache: one download per URL however many ask, progress, retries
/// with capped exponential backoff that resume the partial file with a Range request, and validation
/// before a file is admitted: the length the server announced (no byte past it is written), and a probe
/// by the decoder on a thread of its own with a deadline. A file that fails the probe never enters the
/// cache, and its URL is not fetched again for a while (`badFileBackoff`). Files found in the cache at
/// start are probed again before the first one is handed out, and a file whose probe the process did not
/// survive is dropped at the next start, so no file can crash the service at every start.
public actor AudioDownloader {
    public let http: HTTPClient
    public nonisolated let cache: AudioCache
    public let attempts: Int
    public let backoff: Backoff
    /// A download that receives nothing for this long is dropped and retried (resuming).
    public let stallTimeout: Double
    /// The longest one attempt may take, however steadily bytes trickle in.
    public let deadline: Double
    public let probe: AudioProbe
    private var badFiles: BadFileBackoff
    private var downloads: [String: Task<Result<String, DownloadError>, Never>] = [:]
    private var startupCheck: Task<Void, Never>?
    private let onProblem: @Sendable (String) -> Void

    public init(
        http: HTTPClient, cache: AudioCache, attempts: Int = 5, backoff: (first: Double, cap: Double) = (1, 30),
        stallTimeout: Double = 15, deadline: Double = 300, probe: AudioProbe = AudioProbe(),
        badFileBackoff: (first: Double, cap: Double) = (600, 6 * 3600), badFilesRemembered: Int = 256,
        onProblem: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.stallTimeout = stallTimeout
        self.deadline = deadline
        self.http = http
        self.cache = cache
        self.attempts = attempts
        self.backoff = Backoff(first: backoff.first, cap: backoff.cap)
        self.probe = probe
        badFiles = BadFileBackoff(Backoff(first: badFileBackoff.first, cap: badFileBackoff.cap), capacity: max(1, badFilesRemembered))
        self.onProblem = onProblem
    }

    /// Only these are downloaded: a schedule cannot point the downloader at a local file (a local folder's
    /// files are resolved by its own source) or at another protocol.
    public static func isDownloadable(_ url: String) -> Bool {
        let lowered = url.prefix(8).lowercased()
        return (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")) && ControlCharacters.first(in: url) == nil
    }

    /// The cached file for `url`, downloading it if needed. `progress` gets 0…1 when the length is known.
    public func file(for url: String, progress: (@Sendable (Double) -> Void)? = nil) async -> Result<String, DownloadError> {
        await checkCacheOnce()
        guard Self.isDownloadable(url) else { return .failure(.unsupportedURL(url)) }
        let now = monotonicSeconds()
        if let until = badFiles.blocked(url, now: now) { return .failure(.backedOff(url, seconds: Int((until - now).rounded(.up)))) }
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

    /// Probes every file already in the cache, once per process, before any is handed out (`file(for:)`
    /// waits for it); drops the bad ones and backs off the URLs whose probe the last process did not survive.
    public func checkCacheOnce() async {
        if startupCheck == nil { startupCheck = Task { await self.checkCache() } }
        await startupCheck?.value
    }

    private func checkCache() async {
        let now = monotonicSeconds()
        for url in cache.crashedDuringProbe {
            let wait = badFiles.failed(url, now: now)
            onProblem("\(url): the check of its file did not finish when the service last stopped (the decoder may have"
                      + " crashed on it): file dropped, not fetched again for \(Int(wait)) s")
        }
        for path in cache.storedFiles {
            cache.beginProbe(nil, path: path)
            let failure = await probe.check(path)
            if let failure {
                cache.removeStored(path)
                onProblem("cached file dropped: \(failure)")
            }
            cache.endProbe(path: path)
        }
    }

    private func download(_ url: String, progress: (@Sendable (Double) -> Void)?) async -> Result<String, DownloadError> {
        var attempt = 0
        while true {
            let outcome = await downloadOnce(url, lastAttempt: attempt + 1 >= attempts, progress: progress)
            switch outcome {
            case .success: return outcome
            case .failure(let error):
                attempt += 1
                guard error.isTransient, attempt < attempts, !Task.isCancelled else { return outcome }
                let wait = backoff.delay(attempt: attempt)
                onProblem("\(error); retrying in \(wait) s (attempt \(attempt + 1) of \(attempts))")
                try? await Task.sleep(for: .seconds(wait))
                if Task.isCancelled { return .failure(.cancelled(url)) }
            }
        }
    }

    /// One attempt. A partial file is kept to resume from only if another attempt follows (or the download
    /// was cancelled, to resume when it is asked for again); after the last, its room goes back to the cache.
    private func downloadOnce(
        _ url: String, lastAttempt: Bool, progress: (@Sendable (Double) -> Void)?
    ) async -> Result<String, DownloadError> {
        let reservation: CacheReservation
        do {
            reservation = try cache.reserve(url, bytes: 1)
        } catch {
            return .failure(.cache(url, error))
        }
        let file: FileDescriptor
        do { file = try .open(reservation.temporaryPath, O_WRONLY | O_CREAT, permissions: 0o644) } catch {
            cache.abandon(reservation)
            return .failure(.cache(url, .io(path: reservation.temporaryPath, reason: error.description)))
        }
        let fetched = await fetch(url, reservation: reservation, into: file, progress: progress)
        file.close()
        if case .failure(let error) = fetched {
            if error.dropsPartialFile || (lastAttempt && error.isTransient) { cache.abandon(reservation) }
            if error.marksFileBad { badFiles.failed(url, now: monotonicSeconds()) }
            return .failure(error)
        }
        // The decoder sees the file before the cache does; a marker covers the probe, should it take the
        // process down.
        cache.beginProbe(url, path: reservation.temporaryPath)
        let failure = await probe.check(reservation.temporaryPath)
        if let failure {
            cache.abandon(reservation)
            cache.endProbe(path: reservation.temporaryPath)
            let wait = badFiles.failed(url, now: monotonicSeconds())
            return .failure(.notAudio(url, failure, retryIn: Int(wait)))
        }
        cache.endProbe(path: reservation.temporaryPath)
        do {
            let path = try cache.commit(reservation)
            progress?(1)
            return .success(path)
        } catch {
            cache.abandon(reservation)
            return .failure(.cache(url, error))
        }
    }

    /// One transfer into the reservation's file: refused before a byte is written if the length is unknown
    /// or does not fit, stopped at the first byte past the announced length, bounded by `deadline`.
    private func fetch(
        _ url: String, reservation: CacheReservation, into file: FileDescriptor, progress: (@Sendable (Double) -> Void)?
    ) async -> Result<Void, DownloadError> {
        let offset = reservation.existingBytes
        let cache = self.cache
        let request = HTTPRequest(url: url, timeout: deadline, stallTimeout: stallTimeout, resumeFrom: offset)
        let expected = ExpectedLength()
        do {
            _ = try await http.download(request, into: file.rawValue, onHeaders: { status, headers in
                // Room for the whole file is made before its first byte is written.
                guard let total = Self.totalLength(status: status, headers: headers, offset: offset) else {
                    expected.refusal = status == 200 && offset > 0 ? .rangeIgnored(url) : .noLength(url, status: status)
                    return .refuse("\(expected.refusal!)")
                }
                guard total >= offset else {
                    expected.refusal = .noLength(url, status: status)
                    return .refuse("\(expected.refusal!)")
                }
                expected.value = total
                do throws(CacheError) { try cache.grow(reservation, to: total) } catch {
                    expected.refusal = .cache(url, error)
                    return .refuse("\(error)")
                }
                return .accept(bodyLimit: total - offset)
            }, progress: { received, _ in
                if let total = expected.value, total > 0 { progress?(Double(offset + received) / Double(total)) }
            })
        } catch .cancelled {
            return .failure(.cancelled(url))
        } catch .refused(let reason) {
            return .failure(expected.refusal ?? .refused(url, reason))
        } catch {
            return .failure(.http(url, error))
        }
        let size = (try? file.size()) ?? 0
        if let total = expected.value, size != total {
            return .failure(.http(url, .truncated("\(url): \(size) of \(total) bytes")))
        }
        return .success(())
    }

    /// The whole file's length from a 200's Content-Length or a 206's Content-Range.
    static func totalLength(status: Int, headers: [(name: String, value: String)], offset: Int64) -> Int64? {
        func header(_ name: String) -> String? { headers.last { $0.name == name }?.value }
        if status == 206, let range = header("content-range"), let slash = range.lastIndex(of: "/") {
            return Int64(range[range.index(after: slash)...].trimmingWhitespaceSubstring()).flatMap { $0 >= 0 ? $0 : nil }
        }
        guard status == 200, offset == 0, let length = header("content-length") else { return nil }
        return Int64(length).flatMap { $0 >= 0 ? $0 : nil }
    }
}

/// What the headers said, learnt on the network thread and read by later callbacks of the same transfer
/// and, after it, by the downloader.
// @unchecked Sendable: written by the headers callback and read by later callbacks of the same transfer,
// all on the network thread; the downloader reads it only after the transfer has completed (the
// continuation's resume orders those reads after the writes).
private final class ExpectedLength: @unchecked Sendable {
    var value: Int64?
    var refusal: DownloadError?
}

public enum DownloadError: Error, Equatable, CustomStringConvertible {
    case http(String, HTTPError)
    case cache(String, CacheError)
    /// The file failed the decoder's probe; not fetched again for `retryIn` seconds.
    case notAudio(String, ProbeFailure, retryIn: Int)
    /// Not an http or https URL (a schedule's `file://`, `gopher://`, …).
    case unsupportedURL(String)
    /// The response gave no length to reserve room for (HTTP status).
    case noLength(String, status: Int)
    /// The file failed recently; not fetched again for `seconds`.
    case backedOff(String, seconds: Int)
    /// A resumed download got the whole file from the start: the next attempt starts over.
    case rangeIgnored(String)
    case refused(String, String)
    case cancelled(String)

    public var isTransient: Bool {
        switch self {
        case .http(_, let error): error.isTransient
        case .rangeIgnored: true
        default: false
        }
    }

    /// The partial file cannot be resumed from: delete it (a network error worth a retry keeps it).
    var dropsPartialFile: Bool {
        switch self {
        case .http(_, .status): true
        case .http(_, let error): !error.isTransient
        case .cancelled: false
        default: true
        }
    }

    /// The server's answer itself is hostile or broken: back the URL off like a file that does not decode.
    var marksFileBad: Bool {
        if case .http(_, .bodyTooLong) = self { return true }
        if case .http(_, .unsupportedProtocol) = self { return true }
        if case .http(_, .insecureRedirect) = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .http(let url, let error): "download of \(url) failed: \(error)"
        case .cache(let url, let error): "cannot cache \(url): \(error)"
        case .notAudio(let url, let failure, let retryIn):
            "\(url) is not playable audio: \(failure); dropped, not fetched again for \(retryIn) s"
        case .unsupportedURL(let url): "download of \(url) refused: only http and https URLs are downloaded"
        case .noLength(let url, let status): "download of \(url) refused: no usable length in the response (HTTP \(status))"
        case .backedOff(let url, let seconds): "\(url) failed recently; not fetched again for \(seconds) s"
        case .rangeIgnored(let url): "download of \(url): the server ignored the Range request; starting over"
        case .refused(let url, let reason): "download of \(url) refused: \(reason)"
        case .cancelled(let url): "download of \(url) cancelled"
        }
    }
}

extension Substring {
    func trimmingWhitespaceSubstring() -> String { String(self).trimmingWhitespace() }
}
