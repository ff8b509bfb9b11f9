import CCurl
import FoundationEssentials
import Glibc
import PlayolaSupport
import Synchronization

/// HTTP over libcurl's multi interface, on one network thread for all transfers: schedule fetches,
/// downloads, listening sessions. http and https only (redirects too), TLS verification on, redirects followed
/// (from https only to https), compressed responses accepted,
/// connect and stall timeouts, and cancellation that stops the transfer at once (Swift task cancellation
/// aborts it inside libcurl).
public final class HTTPClient: Sendable {
    /// The network thread and its multi handle, made by the first transfer: a client that never makes
    /// one (a local station's) never loads libcurl (ccurl.h) nor starts the thread.
    private let started = Mutex<NetworkLoop?>(nil)
    /// A PEM file of certificate authorities trusted instead of the system's (a private server's own, a
    /// test's); nil: the system's.
    private let certificateAuthorities: String?

    public init(certificateAuthorities: String? = nil) {
        self.certificateAuthorities = certificateAuthorities
    }

    deinit {
        guard let loop = started.withLock({ $0 }) else { return }
        loop.stopping.store(true, ordering: .releasing)
        ccurl_multi_wakeup(loop.multi.handle)
    }

    /// The network loop, loading libcurl and starting the thread on the first call.
    private func loop() throws(HTTPError) -> NetworkLoop {
        let loop = started.withLock { (started: inout NetworkLoop?) -> Result<NetworkLoop, HTTPError> in
            if let started { return .success(started) }
            if let failure = ccurl_load() { return .failure(.other(String(cString: failure))) }
            guard let handle = ccurl_multi_init() else { return .failure(.other("curl_multi_init failed")) }
            let loop = NetworkLoop(multi: CurlMulti(handle), certificateAuthorities: certificateAuthorities)
            startThread(named: "playola-net") { loop.run() }
            started = loop
            return .success(loop)
        }
        return try loop.get()
    }

    /// Sends a request and collects the body in memory. Throws `.status` for a 4xx/5xx answer.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await perform(Transfer(request: request, file: nil, onHeaders: nil, progress: nil))
    }

    /// Downloads the body into `file` (an open descriptor), writing from `request.resumeFrom` on.
    /// `onHeaders(status, headers)` runs once before the first body byte and may refuse the body or cap
    /// it: a body longer than the cap stops the transfer with `.bodyTooLong` before the excess is written.
    /// `progress(received, expected)` counts bytes of this transfer.
    public func download(
        _ request: HTTPRequest, into file: Int32,
        onHeaders: (@Sendable (Int, [(name: String, value: String)]) -> HeaderVerdict)? = nil,
        progress: (@Sendable (Int64, Int64?) -> Void)? = nil
    ) async throws(HTTPError) -> HTTPResponse {
        try await perform(Transfer(request: request, file: file, onHeaders: onHeaders, progress: progress))
    }

    /// Receives a body that may never end (an internet radio stream): `onHeaders` as for `download`, then
    /// each piece of the body to `onBody` on the network thread as it arrives (false stops the
    /// transfer with `.refused`). Returns when the server ends
    /// the stream; throws `.timeout` after `request.stallTimeout` seconds without a byte, and `.cancelled`
    /// when the calling task is cancelled.
    /// `receiveBatch`, for a stream that lasts (never a finite response): asked after each piece of body until
    /// it returns a size, from then on the network thread wakes for this stream once that many bytes have
    /// arrived (or at its end), not at every TCP segment; its connection is not reused afterwards. The size
    /// must arrive well within the stream's buffer and `stallTimeout`.
    public func stream(
        _ request: HTTPRequest,
        onHeaders: @escaping @Sendable (Int, [(name: String, value: String)]) -> String?,
        onBody: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool,
        receiveBatch: (@Sendable () -> Int?)? = nil
    ) async throws(HTTPError) -> HTTPResponse {
        let verdict: @Sendable (Int, [(name: String, value: String)]) -> HeaderVerdict = { status, headers in
            onHeaders(status, headers).map(HeaderVerdict.refuse) ?? .accept(bodyLimit: nil)
        }
        return try await perform(Transfer(
            request: request, file: nil, onHeaders: verdict, progress: nil, onBody: onBody, receiveBatch: receiveBatch))
    }

    private func perform(_ transfer: Transfer) async throws(HTTPError) -> HTTPResponse {
        let loop = try loop()
        let multi = loop.multi
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                transfer.continuation.withLock { $0 = continuation }
                if Task.isCancelled { transfer.cancelled.store(true, ordering: .releasing) }
                loop.incoming.withLock { $0.append(transfer) }
                ccurl_multi_wakeup(multi.handle)
            }
        } onCancel: {
            transfer.cancelled.store(true, ordering: .releasing)
            ccurl_multi_wakeup(multi.handle)
        }
        return try result.get()
    }
}

/// The multi handle. `curl_multi_wakeup` is documented thread-safe; every other call on it is made by
/// the network thread alone, so sharing the pointer is safe.
struct CurlMulti: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    init(_ handle: UnsafeMutableRawPointer) { self.handle = handle }
}

/// The network thread: adds new transfers, runs libcurl, completes finished ones.
private final class NetworkLoop: Sendable {
    let multi: CurlMulti
    let certificateAuthorities: String?
    let incoming = Mutex<[Transfer]>([])
    let stopping = Atomic<Bool>(false)

    init(multi: CurlMulti, certificateAuthorities: String?) {
        self.multi = multi
        self.certificateAuthorities = certificateAuthorities
    }

    func run() {
        var active: [UInt: Transfer] = [:]
        var running: Int32 = 0
        while !stopping.load(ordering: .acquiring) {
            for transfer in incoming.withLock({ pending in defer { pending.removeAll() }; return pending }) {
                if let easy = transfer.start(trusting: certificateAuthorities) {
                    active[UInt(bitPattern: easy)] = transfer
                    ccurl_multi_add_handle(multi.handle, easy)
                }
            }
            for (key, transfer) in active where transfer.cancelled.load(ordering: .acquiring) {
                ccurl_multi_remove_handle(multi.handle, transfer.easy)
                transfer.finish(CURLE_ABORTED_BY_CALLBACK)
                active[key] = nil
            }
            ccurl_multi_perform(multi.handle, &running)
            var left: Int32 = 0
            while let message = ccurl_multi_info_read(multi.handle, &left) {
                var easy: UnsafeMutableRawPointer?
                var result = CURLE_OK
                guard ccurl_message_done(message, &easy, &result) != 0, let easy,
                      let transfer = active.removeValue(forKey: UInt(bitPattern: easy)) else { continue }
                ccurl_multi_remove_handle(multi.handle, easy)
                transfer.finish(result)
            }
            ccurl_multi_poll(multi.handle, nil, 0, 1000, nil)
        }
        for transfer in active.values {
            ccurl_multi_remove_handle(multi.handle, transfer.easy)
            transfer.finish(CURLE_ABORTED_BY_CALLBACK)
        }
        ccurl_multi_cleanup(multi.handle)
    }
}
