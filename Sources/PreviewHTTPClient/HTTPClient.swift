// The only file that calls libcurl (7.88). Raw pointers stay here.
import CCurl
import CShimsCurl
import PreviewCore

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking HTTP/1.1 (and HTTP/2 over TLS) client over one libcurl easy handle, reused across
/// requests so connections stay alive.
///
/// Not for concurrent use: a handle serves one transfer at a time, so keep one client per thread
/// (a worker's own state). That is why the class is not `Sendable`.
///
/// What goes over the wire: the path exactly as given (`CURLOPT_PATH_AS_IS`: `/./`, `//`, `%7E`
/// survive, as signed URLs require); the request's headers exactly, plus `Host` and, for bodies,
/// `Content-Length` — curl's own `Accept: */*`, `Expect: 100-continue` and form `Content-Type` are
/// suppressed unless the request sets them. Redirects are not followed. Loopback never goes
/// through a proxy; other hosts honour `http_proxy` / `https_proxy` / `no_proxy` as curl does.
public final class HTTPClient {
    private let handle: UnsafeMutableRawPointer
    /// CURLOPT_ERRORBUFFER: curl keeps the pointer, so it lives as long as the handle.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let noProxy: String

    public init() throws {
        if globalInitResult != CURLE_OK {
            throw HTTPClientError(
                kind: .transfer, message: "curl_global_init: " + String(cString: curl_easy_strerror(globalInitResult)))
        }
        guard let handle = curl_easy_init() else {
            throw HTTPClientError(kind: .transfer, message: "curl_easy_init returned NULL")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        noProxy = Self.noProxyList(environmentValue: Self.environmentNoProxy())
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// Sends `request` and waits for the whole response.
    public func send(_ request: HTTPClientRequest) throws -> HTTPClientResponse {
        try Self.validate(request)
        let upload = try UploadSource.make(method: request.method, body: request.body)
        let transfer = Transfer(upload: upload)
        transfer.bodyLimit = request.maxResponseBodyBytes ?? Int.max
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        defer {
            // Forget every option (the header list and context pointers die here) but keep the
            // connection cache, DNS cache and TLS sessions.
            curl_easy_reset(handle)
            curl_slist_free_all(headerList)
        }
        errorBuffer[0] = 0
        headerList = try makeHeaderList(request.headers)
        let context = Unmanaged.passUnretained(transfer).toOpaque()

        try set(CURLOPT_URL, string: request.url)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_NOSIGNAL, 1)  // threaded process: no SIGALRM-based DNS timeouts
        try set(CURLOPT_PATH_AS_IS, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_NOPROXY, string: noProxy)
        // Validated positive and finite; capped at ~24 days so the conversion cannot trap.
        let timeoutMS = Int(min((request.timeoutSeconds * 1000).rounded(.up), Double(Int32.max)))
        try set(CURLOPT_TIMEOUT_MS, timeoutMS)
        try set(CURLOPT_CONNECTTIMEOUT_MS, timeoutMS)
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headerList))
        try check(
            CShims_curl_easy_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION, onHeaderLine), "HEADERFUNCTION")
        try set(CURLOPT_HEADERDATA, pointer: context)
        try check(CShims_curl_easy_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION, onBodyBytes), "WRITEFUNCTION")
        try set(CURLOPT_WRITEDATA, pointer: context)
        try setMethod(request.method, upload: upload, context: context)
        if let upload, let progress = request.uploadProgress {
            transfer.uploadProgress = progress
            try check(
                CShims_curl_easy_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION, onTransferInfo),
                "XFERINFOFUNCTION")
            try set(CURLOPT_XFERINFODATA, pointer: context)
            try set(CURLOPT_NOPROGRESS, 0)
            progress(0, upload.size)
        }

        let code = withExtendedLifetime(transfer) { curl_easy_perform(handle) }
        guard code == CURLE_OK else {
            throw error(for: code, transfer: transfer)
        }
        var status = 0
        try check(CShims_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status), "RESPONSE_CODE")
        return HTTPClientResponse(status: status, headers: HTTPHeaders(transfer.headerFields), body: transfer.body)
    }

    /// GET and HEAD have their own options; PUT, POST and any method with a body read it
    /// through READFUNCTION (never POSTFIELDS, which would add a form content type).
    private func setMethod(_ method: String, upload: UploadSource?, context: UnsafeMutableRawPointer) throws {
        if method == "HEAD" {
            try set(CURLOPT_NOBODY, 1)
            return
        }
        guard let upload else {
            try set(CURLOPT_HTTPGET, 1)
            if method != "GET" { try set(CURLOPT_CUSTOMREQUEST, string: method) }
            return
        }
        try check(CShims_curl_easy_setopt_read_callback(handle, CURLOPT_READFUNCTION, onUploadRead), "READFUNCTION")
        try set(CURLOPT_READDATA, pointer: context)
        // Lets curl rewind when it retries on a reused connection the server had closed.
        try check(CShims_curl_easy_setopt_seek_callback(handle, CURLOPT_SEEKFUNCTION, onUploadSeek), "SEEKFUNCTION")
        try set(CURLOPT_SEEKDATA, pointer: context)
        if method == "POST" {
            try set(CURLOPT_POST, 1)
            try check(
                CShims_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(upload.size)),
                "POSTFIELDSIZE")
        } else {
            try set(CURLOPT_UPLOAD, 1)
            try check(
                CShims_curl_easy_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(upload.size)), "INFILESIZE")
            if method != "PUT" { try set(CURLOPT_CUSTOMREQUEST, string: method) }
        }
    }

    private func makeHeaderList(_ headers: HTTPHeaders) throws -> UnsafeMutablePointer<curl_slist>? {
        var lines: [String] = headers.map { field in
            // "Name:" would remove the header; "Name;" is curl's syntax for an empty value.
            field.value.trimmingSpacesAndTabs().isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
        }
        for suppressed in ["Accept", "Expect", "Content-Type"] where headers[suppressed] == nil {
            lines.append("\(suppressed):")
        }
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for line in lines {
            guard let extended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw HTTPClientError(kind: .transfer, message: "curl_slist_append: out of memory")
            }
            list = extended
        }
        return list
    }

    private func error(for code: CURLcode, transfer: Transfer) -> HTTPClientError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        if let uploadError = transfer.uploadError {
            return HTTPClientError(kind: .file, message: "\(uploadError) (\(detail))")
        }
        if transfer.bodyTooLarge {
            return HTTPClientError(kind: .transfer, message: "the response body is over \(transfer.bodyLimit) bytes")
        }
        let kind: HTTPClientError.Kind
        switch code {
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: kind = .invalidURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
            CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION:
            kind = .connect
        case CURLE_OPERATION_TIMEDOUT: kind = .timeout
        case CURLE_READ_ERROR: kind = .file
        default: kind = .transfer
        }
        return HTTPClientError(kind: kind, message: detail)
    }

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(CShims_curl_easy_setopt_long(handle, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, string value: String) throws {
        try check(CShims_curl_easy_setopt_string(handle, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
        try check(CShims_curl_easy_setopt_pointer(handle, option, value), "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else {
            let kind: HTTPClientError.Kind = code == CURLE_UNSUPPORTED_PROTOCOL ? .invalidURL : .transfer
            throw HTTPClientError(kind: kind, message: "\(what): " + String(cString: curl_easy_strerror(code)))
        }
    }
}

/// `curl_global_init` is not safe to race; a global's initialiser runs exactly once (swift_once).
/// `CURLcode` is a plain C enum value, so sharing it is safe.
private let globalInitResult: CURLcode = CShims_curl_global_init_default()

// MARK: - Per-transfer state reached from the C callbacks

/// The state of one `send`, reached from curl's callbacks through the userdata pointer.
private final class Transfer {
    var headerFields: [(String, String)] = []
    var body: [UInt8] = []
    /// `maxResponseBodyBytes`; set when the body would pass it, and the transfer aborted.
    var bodyLimit = Int.max
    var bodyTooLarge = false
    let upload: UploadSource?
    var uploadError: String?
    /// `HTTPClientRequest.uploadProgress`, and the count it was last told.
    var uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    var reportedSent: Int64 = 0

    init(upload: UploadSource?) { self.upload = upload }

    func receiveHeaderLine(_ bytes: UnsafeBufferPointer<UInt8>) {
        var line = Substring(HTTPClient.decodeHeaderBytes(bytes))
        while let last = line.last, last == "\r\n" || last == "\n" || last == "\r" { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            headerFields = []  // a new response (after 100 Continue or an interim 1xx) starts
        } else if line.isEmpty {
            return
        } else if line.first == " " || line.first == "\t" {
            // obs-fold (RFC 9112 §5.2): continuation of the previous field value.
            if let last = headerFields.indices.last {
                headerFields[last].1 += " " + line.trimmingSpacesAndTabs()
            }
        } else if let colon = line.firstIndex(of: ":") {
            headerFields.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpacesAndTabs()))
        }
    }
}

private func onHeaderLine(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    deliver(buffer, size, count, userdata) { transfer, bytes in
        transfer.receiveHeaderLine(bytes)
        return true
    }
}

private func onBodyBytes(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
) -> Int {
    deliver(buffer, size, count, userdata) { transfer, bytes in
        guard bytes.count <= transfer.bodyLimit - transfer.body.count else {
            transfer.bodyTooLarge = true
            return false
        }
        transfer.body.append(contentsOf: bytes)
        return true
    }
}

/// What both curl write callbacks do: find the `Transfer` behind `userdata`, hand it the bytes,
/// and return how many were taken (0 makes curl abort the transfer, as does a refusal).
private func deliver(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?,
    to receive: (Transfer, UnsafeBufferPointer<UInt8>) -> Bool
) -> Int {
    guard let buffer, let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    let taken = buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
        receive(transfer, UnsafeBufferPointer(start: $0, count: length))
    }
    return taken ? length : 0
}

private func onUploadRead(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?
)
    -> Int
{
    guard let buffer, let userdata else { return Int(CURL_READFUNC_ABORT) }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    guard let upload = transfer.upload else { return 0 }
    do {
        return try upload.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    } catch {
        transfer.uploadError = error.message
        return Int(CURL_READFUNC_ABORT)
    }
}

private func onUploadSeek(_ userdata: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let userdata, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    guard let upload = transfer.upload, upload.seek(to: Int64(offset)) else { return Int32(CURL_SEEKFUNC_FAIL) }
    return Int32(CURL_SEEKFUNC_OK)
}

/// CURLOPT_XFERINFOFUNCTION: passes the upload count on when it changed. Returns 0 (go on): the
/// callback only reports, it never aborts a transfer.
private func onTransferInfo(
    _ userdata: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t,
    _ uploadTotal: curl_off_t, _ uploaded: curl_off_t
) -> Int32 {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    guard let progress = transfer.uploadProgress, let upload = transfer.upload,
        Int64(uploaded) != transfer.reportedSent
    else { return 0 }
    transfer.reportedSent = Int64(uploaded)
    progress(Int64(uploaded), upload.size)
    return 0
}
