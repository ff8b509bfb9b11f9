import CCurl
import FoundationEssentials
import Glibc
import PlayolaSupport
import Synchronization

/// One HTTP transfer: its libcurl easy handle, what it has received, and who waits for it.
// @unchecked Sendable: created by the requesting task, then handed through the client's Mutex-protected
// queue to the network thread, which alone touches the mutable fields from then on; the only fields
// shared across threads are `cancelled` (an Atomic) and `continuation` (a Mutex).
final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let cancelled = Atomic<Bool>(false)
    let continuation = Mutex<CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>?>(nil)
    private(set) var easy: UnsafeMutableRawPointer?
    private let file: Int32?
    private let onHeaders: (@Sendable (Int, [(name: String, value: String)]) -> HeaderVerdict)?
    private let progress: (@Sendable (Int64, Int64?) -> Void)?
    /// A stream's body goes to this callback (network thread) as it arrives, instead of memory or a file.
    private let onBody: (@Sendable (UnsafeRawBufferPointer) -> Bool)?
    /// A long-lived stream's batch: asked after each piece of body until it names a size, which then becomes
    /// the socket's wake-up threshold (`raiseWakeThreshold`).
    private let receiveBatch: (@Sendable () -> Int?)?
    private var batchAsked = false
    /// The sockets libcurl made for this transfer (network thread), newest last: one of them is its connection.
    private var sockets: [Int32] = []
    private var headers: [(name: String, value: String)] = []
    private var body = Data()
    private var bodyBytes: Int64 = 0
    private var headersChecked = false
    private var refusal: String?
    /// Bytes of body this transfer may write, set by `onHeaders`; past it the transfer stops (`bodyTooLong`).
    private var bodyLimit: Int64?
    private var overran = false
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// SHOUTcast v1 servers answer "ICY 200 OK", which libcurl takes for HTTP/0.9 unless told it means 200.
    private var statusAliases: UnsafeMutablePointer<curl_slist>?
    /// Error bodies are kept in memory, not written into the download file, and only this much.
    private static let maxMemoryBody = 32 << 20

    init(
        request: HTTPRequest, file: Int32?,
        onHeaders: (@Sendable (Int, [(name: String, value: String)]) -> HeaderVerdict)?,
        progress: (@Sendable (Int64, Int64?) -> Void)?, onBody: (@Sendable (UnsafeRawBufferPointer) -> Bool)? = nil,
        receiveBatch: (@Sendable () -> Int?)? = nil
    ) {
        self.request = request
        self.file = file
        self.onHeaders = onHeaders
        self.progress = progress
        self.onBody = onBody
        self.receiveBatch = receiveBatch
    }

    deinit {
        if let easy { ccurl_easy_cleanup(easy) }
        ccurl_slist_free_all(headerList)
        ccurl_slist_free_all(statusAliases)
    }

    /// Creates and configures the easy handle (network thread). Nil if it failed; then it is finished.
    /// `certificateAuthorities`: a PEM file trusted instead of the system's authorities (nil: the system's).
    func start(trusting certificateAuthorities: String?) -> UnsafeMutableRawPointer? {
        guard let easy = ccurl_easy_init() else {
            complete(.failure(.other("curl_easy_init failed")))
            return nil
        }
        self.easy = easy
        // A header value from outside (a token, a station's extra headers) must not end the field early:
        // a CR or LF in it would add a header, or a second request, of the sender's choosing.
        if let bad = request.headers.first(where: { !HTTPHeaderField.isSafe($0) }) {
            complete(.failure(.invalidHeader(HTTPHeaderField.name(of: bad))))
            return nil
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        // http and https only, redirects included: a schedule may not make us read a local file or speak
        // gopher/dict to a service on the box. A redirect never leaves TLS: an https request follows https
        // redirects only (its body, its token, what it fetches would otherwise cross the network in the clear,
        // open to whoever answers the plain request); an http request may be upgraded.
        guard ccurl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK,
              ccurl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, request.isHTTPS ? "https" : "http,https") == CURLE_OK else {
            complete(.failure(.other("libcurl cannot limit protocols to http and https")))
            return nil
        }
        if let certificateAuthorities { ccurl_set_string(easy, CURLOPT_CAINFO, certificateAuthorities) }
        ccurl_set_string(easy, CURLOPT_URL, request.url)
        ccurl_set_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        ccurl_set_long(easy, CURLOPT_MAXREDIRS, 5)
        ccurl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        ccurl_set_string(easy, CURLOPT_USERAGENT, PlayolaVersion.userAgent)
        ccurl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        ccurl_set_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        ccurl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
        if request.timeout > 0 { ccurl_set_long(easy, CURLOPT_TIMEOUT_MS, Int(request.timeout * 1000)) }
        ccurl_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        ccurl_set_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.stallTimeout.rounded(.up))))
        for header in request.headers { headerList = ccurl_slist_append(headerList, header) }
        if let headerList { ccurl_set_pointer(easy, CURLOPT_HTTPHEADER, headerList) }
        statusAliases = ccurl_slist_append(nil, "ICY 200 OK")
        ccurl_set_pointer(easy, CURLOPT_HTTP200ALIASES, statusAliases)
        switch request.method {
        case .get: break
        case .head: ccurl_set_long(easy, CURLOPT_NOBODY, 1)
        case .post:
            let payload = request.body ?? Data()
            ccurl_set_long(easy, CURLOPT_POST, 1)
            ccurl_set_long(easy, CURLOPT_POSTFIELDSIZE, payload.count)
            _ = payload.withUnsafeBytes { ccurl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!)) }
        }
        // A socket whose wake-up threshold may be raised is never handed to another transfer: a small response
        // on it would wait for bytes that never come.
        if receiveBatch != nil {
            ccurl_set_long(easy, CURLOPT_FORBID_REUSE, 1)
            ccurl_set_socket_callback(easy) { context, socket, _ in
                Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().sockets.append(socket)
                return Int32(CURL_SOCKOPT_OK)
            }
            ccurl_set_pointer(easy, CURLOPT_SOCKOPTDATA, context)
        }
        if request.resumeFrom > 0 { ccurl_set_offset(easy, CURLOPT_RESUME_FROM_LARGE, curl_off_t(request.resumeFrom)) }
        ccurl_set_data_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().receive(body: data!, count: size * count)
        }
        ccurl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        ccurl_set_data_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().receive(header: data!, count: size * count)
        }
        ccurl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        ccurl_set_long(easy, CURLOPT_NOPROGRESS, 0)
        ccurl_set_progress_callback(easy) { context, total, received, _, _ in
            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().report(received: received, total: total)
        }
        ccurl_set_pointer(easy, CURLOPT_XFERINFODATA, context)
        return easy
    }

    private var status: Int {
        var code = 0
        if let easy { ccurl_get_long(easy, CURLINFO_RESPONSE_CODE, &code) }
        return code
    }

    private func receive(header data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers.removeAll() // a redirect or 100-continue: only the final response's fields count
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...]).trimmingWhitespace()
            headers.append((name, value))
        } else if line == "\r\n" || line == "\n", !headersChecked, (200..<300).contains(status) {
            // The end of the final response's header: judged now, so a length that cannot fit is refused
            // even when no body byte ever comes.
            guard acceptHeaders(status: status) else { return 0 }
        }
        return count
    }

    /// Runs `onHeaders` once; false when it refused the body (the reason is in `refusal`).
    private func acceptHeaders(status: Int) -> Bool {
        headersChecked = true
        guard status < 300, let onHeaders else { return true }
        switch onHeaders(status, headers) {
        case .refuse(let reason):
            refusal = reason
            return false
        case .accept(let limit):
            bodyLimit = limit
            return true
        }
    }

    private func receive(body data: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        let status = self.status
        if !headersChecked, !acceptHeaders(status: status) { return 0 }
        if let bodyLimit, bodyBytes + Int64(count) > bodyLimit {
            // More body than announced (e.g. chunked after a Content-Length): stop before writing it.
            overran = true
            return 0
        }
        if let onBody, status < 300 {
            guard onBody(UnsafeRawBufferPointer(start: data, count: count)) else {
                refusal = "stopped by the receiver"
                return 0
            }
            if !batchAsked, let receiveBatch, let bytes = receiveBatch() {
                batchAsked = true
                raiseWakeThreshold(to: bytes)
            }
        } else if let file, status < 300 {
            var done = 0
            while done < count {
                do {
                    let written = try retryOnInterrupt { pwrite(file, data + done, count - done, off_t(request.resumeFrom + bodyBytes + Int64(done))) }
                    guard written > 0 else { throw Errno.noSpace }
                    done += written
                } catch {
                    refusal = "cannot write the download: \(error)"
                    return 0
                }
            }
        } else {
            guard body.count + count <= Self.maxMemoryBody else {
                refusal = "response body larger than \(Self.maxMemoryBody) bytes"
                return 0
            }
            body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count)
        }
        bodyBytes += Int64(count)
        return count
    }

    /// Lets `bytes` gather in the kernel before poll wakes the network thread for this socket, instead of
    /// waking at every TCP segment (~15 times a second on a 128 kbit/s stream: bench/PROFILE.md, issue 31).
    /// HTTP/1 only: an HTTP/2 connection carries other transfers' frames, which must not wait.
    private func raiseWakeThreshold(to bytes: Int) {
        guard let easy, bytes > 1 else { return }
        var version = 0
        ccurl_get_long(easy, CURLINFO_HTTP_VERSION, &version)
        guard version == CURL_HTTP_VERSION_1_0 || version == CURL_HTTP_VERSION_1_1 else { return }
        // A connection libcurl reused made no socket here: it stays as it is.
        _ = sockets.reversed().first { ccurl_set_receive_low_water(easy, $0, Int32(clamping: bytes)) == 0 }
    }

    private func report(received: curl_off_t, total: curl_off_t) -> Int32 {
        if cancelled.load(ordering: .relaxed) { return 1 }
        progress?(Int64(received), total > 0 ? Int64(total) : nil)
        return 0
    }

    /// Completes the transfer with libcurl's result (network thread).
    func finish(_ code: CURLcode) {
        let status = self.status
        let result: Result<HTTPResponse, HTTPError>
        let detail = "\(request.url): " + String(cString: ccurl_easy_strerror(code))
        if cancelled.load(ordering: .acquiring) {
            result = .failure(.cancelled)
        } else if overran, let bodyLimit {
            result = .failure(.bodyTooLong(url: request.url, limit: bodyLimit))
        } else if let refusal {
            result = .failure(.refused(refusal))
        } else {
            switch code.rawValue {
            case CURLE_OK.rawValue:
                if status >= 400 {
                    result = .failure(.status(status, url: request.url))
                } else {
                    result = .success(HTTPResponse(status: status, headers: headers, body: body, bodyBytes: bodyBytes))
                }
            case CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue:
                result = .failure(.dns(detail))
            case CURLE_COULDNT_CONNECT.rawValue:
                result = .failure(.connect(detail))
            case CURLE_OPERATION_TIMEDOUT.rawValue:
                result = .failure(.timeout(detail))
            case CURLE_SSL_CONNECT_ERROR.rawValue, CURLE_PEER_FAILED_VERIFICATION.rawValue,
                 CURLE_SSL_CERTPROBLEM.rawValue, CURLE_SSL_CACERT_BADFILE.rawValue:
                result = .failure(.tls(detail))
            case CURLE_PARTIAL_FILE.rawValue, CURLE_RECV_ERROR.rawValue, CURLE_GOT_NOTHING.rawValue,
                 CURLE_HTTP2.rawValue, CURLE_HTTP2_STREAM.rawValue, CURLE_SEND_ERROR.rawValue:
                result = .failure(.truncated(detail))
            case CURLE_URL_MALFORMAT.rawValue:
                result = .failure(.invalidURL(request.url))
            case CURLE_UNSUPPORTED_PROTOCOL.rawValue:
                // The URL itself, or a redirect (the refused response's Location), named another protocol.
                let location = status >= 300 && status < 400 ? headers.last { $0.name == "location" }?.value : nil
                if let location, request.isHTTPS, location.lowercased().hasPrefix("http:") {
                    result = .failure(.insecureRedirect(from: request.url, to: location))
                } else {
                    result = .failure(.unsupportedProtocol(location ?? request.url))
                }
            case CURLE_ABORTED_BY_CALLBACK.rawValue:
                result = .failure(.cancelled)
            default:
                result = .failure(.other(detail))
            }
        }
        complete(result)
    }

    private func complete(_ result: Result<HTTPResponse, HTTPError>) {
        let waiting = continuation.withLock { pending in defer { pending = nil }; return pending }
        waiting?.resume(returning: result)
    }
}
