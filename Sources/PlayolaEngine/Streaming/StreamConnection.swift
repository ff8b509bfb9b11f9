import FoundationEssentials
import PlayolaDecoding
import PlayolaNetwork
import Synchronization

/// One HTTP connection to an internet radio stream. On the network thread it takes the ICY headers, strips
/// the metadata blocks out of the body and queues the audio bytes; the live engine decodes them from
/// `buffer` on its decode thread; the player watches it (stalls, failures) and makes a new one when it ends.
public final class StreamConnection: Sendable {
    public let url: String
    public let station: StreamStation
    public let buffer: StreamBuffer
    /// Set by the engine once the audio sounds (its jitter buffer filled).
    public let isSounding = Atomic<Bool>(false)
    /// Set when `run` returns.
    public let hasFinished = Atomic<Bool>(false)
    /// Set by the engine when what arrived cannot be played (not audio, a decoder that gave up).
    private let problem = Mutex<String?>(nil)
    let shared = Mutex<Shared>(Shared())
    /// The latest title not yet taken (`takeTitle`).
    private let latestTitle = Mutex<ICYMetadata?>(nil)
    /// The CPU its parsing takes and the bytes it holds besides its audio.
    package let budget: StreamBudget
    /// Told when something its watcher looks at changes (headers, a title, sounding, a failure, the end),
    /// once until the watcher looks again (`takeChange`): a title at every block is one call per look.
    private let watcher = Mutex<(@Sendable () -> Void)?>(nil)
    private let changeUntaken = Atomic<Bool>(false)

    struct Shared {
        var headers: ICYHeaders?
        var stripper: ICYMetadataStripper?
        var playlist: [UInt8]?
        /// Bytes of body so far, and where the measure of its rate began (`receiveBatchBytes`).
        var bodyBytes = 0
        var rateFrom: (seconds: Double, bytes: Int)?
    }

    /// What ended a connection.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// The server closed the stream.
        case ended
        case failed(HTTPError)
        /// The URL answered with a playlist, not audio: these are its entries' text and type.
        case playlist(body: String, contentType: String?)

        public var description: String {
            switch self {
            case .ended: "the server ended the stream"
            case .failed(let error): "\(error)"
            case .playlist: "the URL is a playlist"
            }
        }
    }

    /// A `.pls` or `.m3u` of stream URLs; an HLS playlist may be up to `HLSFollower.maxBodyBytes`.
    private static let maxPlaylistBytes = 64 << 10

    public convenience init(url: String, station: StreamStation, bufferBytes: Int = 256 << 10) {
        self.init(url: url, station: station, bufferBytes: bufferBytes, budget: StreamBudget(name: url))
    }

    /// With a budget other than the usual one.
    package init(url: String, station: StreamStation, bufferBytes: Int = 256 << 10, budget: StreamBudget) {
        self.url = url
        self.station = station
        buffer = StreamBuffer(capacity: bufferBytes)
        self.budget = budget
    }

    /// `changed` runs, on the network or the decode thread, when something the watcher looks at changes.
    public func watch(_ changed: @escaping @Sendable () -> Void) { watcher.withLock { $0 = changed } }

    /// Whether something changed since the last call; a change after it is told again.
    @discardableResult
    public func takeChange() -> Bool { changeUntaken.exchange(false, ordering: .acquiringAndReleasing) }

    package func changed() {
        guard !changeUntaken.exchange(true, ordering: .acquiringAndReleasing) else { return }
        watcher.withLock { $0 }?()
    }

    /// The title the stream announced last (ICY `StreamTitle`, Ogg tags, HLS ID3), if it came since the last
    /// call. Titles are kept here, the latest replacing the one before, and the player takes them at its own
    /// pace: a server that changes its title at every block costs one announcement per look, not one per block.
    public func takeTitle() -> ICYMetadata? {
        latestTitle.withLock { latest in
            defer { latest = nil }
            return latest
        }
    }

    /// Receives the stream until the server ends it, the network fails, or the calling task is cancelled.
    /// The buffer is finished whatever the outcome, so the decoder plays out what came and then ends.
    public func run(http: HTTPClient) async -> Outcome {
        defer {
            buffer.finish()
            hasFinished.store(true, ordering: .releasing)
            changed()
        }
        let outcome = await receive(http: http)
        // A budget exceeded stopped the transfer: that is the reason, not how the transfer then ended.
        if let reason = budget.exceeded { return .failed(.refused(reason)) }
        return outcome
    }

    private func receive(http: HTTPClient) async -> Outcome {
        let request = HTTPRequest(
            url: url, headers: ["Icy-MetaData: 1", "Accept: */*"] + station.headers, timeout: 0,
            stallTimeout: station.stallSeconds)
        do {
            _ = try await http.stream(request, onHeaders: { [self] status, headers in
                receive(headers: headers)
            }, onBody: { [self] bytes in
                receive(body: bytes)
            }, receiveBatch: { [self] in receiveBatchBytes })
        } catch {
            return .failed(error)
        }
        let (playlist, headers, midBlock) = shared.withLock { ($0.playlist, $0.headers, $0.stripper?.isMidBlock ?? false) }
        if let playlist {
            if HLSPlaylist.isHLS(playlist) {
                return await HLSFollower(url: url, station: station, buffer: buffer, budget: budget, onTags: announce)
                    .run(http: http, firstBody: playlist)
            }
            guard playlist.count <= Self.maxPlaylistBytes else {
                return .failed(.other("\(url): a playlist of streams longer than \(Self.maxPlaylistBytes >> 10) KB"))
            }
            return .playlist(body: String(decoding: playlist, as: UTF8.self), contentType: headers?.contentType)
        }
        if midBlock { return .failed(.truncated("\(url): the stream ended inside a metadata block")) }
        return .ended
    }

    /// The ICY headers of the response, once they have arrived.
    public var headers: ICYHeaders? { shared.withLock { $0.headers } }

    /// Engine side: the decoder the stream's format calls for — `Content-Type` first, then the bytes.
    /// Nil until enough has arrived to tell.
    public func makeDecoder() throws(AudioDecoderError) -> (any StreamDecoder)? {
        let declared = shared.withLock { $0.headers?.format }
        if let declared { return try openStreamDecoder(declared, buffer: buffer, name: url, onTags: announce) }
        let head = buffer.peek(4)
        guard head.count == 4 else {
            if buffer.hasEnded { throw .invalid(path: url, reason: "the stream ended before any audio") }
            return nil
        }
        guard let format = StreamFormat.sniff(head) else {
            let type = headers?.contentType.map { " (Content-Type \($0))" } ?? ""
            throw .unknownFormat(path: url + type)
        }
        return try openStreamDecoder(format, buffer: buffer, name: url, onTags: announce)
    }

    /// Titles from inside the audio (Ogg's tags, HLS's ID3) go where ICY titles go.
    package var announce: @Sendable (StreamTags) -> Void {
        { [self] tags in
            guard let text = tags.text else { return }
            latestTitle.withLock { $0 = ICYMetadata(title: text, artist: tags.artist, song: tags.title) }
            changed()
        }
    }

    /// Engine side: what arrived cannot be played; the player drops the connection and makes another.
    public func fail(_ reason: String) {
        problem.withLock { if $0 == nil { $0 = reason } }
        changed()
    }
    /// Why the connection cannot go on: the engine's reason, or the budget's.
    public var failure: String? { problem.withLock { $0 } ?? budget.exceeded }

    // MARK: network thread (package: the fuzz targets feed it as the network would)

    package func receive(headers fields: [(name: String, value: String)]) -> String? {
        do throws(ICYError) {
            let headers = try ICYHeaders(fields)
            let isPlaylist = headers.contentType.map(StreamPlaylist.isPlaylist) ?? false
            let stripper = isPlaylist ? nil : try headers.metaint.map { metaint throws(ICYError) in try ICYMetadataStripper(metaint: metaint) }
            shared.withLock {
                $0.headers = headers
                $0.stripper = stripper
                $0.playlist = isPlaylist ? [] : nil
            }
            changed()
            return nil
        } catch {
            return "\(url): \(error)"
        }
    }

    package func receive(body bytes: UnsafeRawBufferPointer) -> Bool {
        let buffer = self.buffer
        let (title, keepGoing): (ICYMetadata?, Bool) = budget.measure {
            shared.withLock { shared in
                shared.bodyBytes += bytes.count
                if shared.playlist != nil {
                    shared.playlist!.append(contentsOf: bytes)
                    return (nil, shared.playlist!.count <= HLSFollower.maxBodyBytes)
                }
                guard shared.stripper != nil else {
                    buffer.append(bytes)
                    return (nil, true)
                }
                return (shared.stripper!.consume(bytes) { audio in buffer.append(audio) }.last, true)
            }
        }
        if let title {
            latestTitle.withLock { $0 = title }
            changed()
        }
        // The budget's failure ends the transfer here; the player sees it in `failure` and reconnects.
        return keepGoing && budget.exceeded == nil
    }
}
