// libmicrohttpd's request callbacks: a request's state from its line to its completion, admission,
// body and hand-off to the responder (MHDDaemon.swift has the daemon).
import CMicroHTTPD
import CShimsMHD
import Glibc
import PreviewCore

// MARK: - Requests

/// One request's state, from its request line to NOTIFY_COMPLETED.
///
/// `@unchecked Sendable`: it crosses threads once each way, never shared at the same time.
/// The MHD thread fills it, suspends the connection and queues the job (the pool's lock
/// orders these before the job runs); the worker sets `response` then resumes the
/// connection; MHD's resume lock orders that before the MHD thread reads `response`.
final class RequestState: @unchecked Sendable {
    /// How the body of an admitted request is read.
    enum Body {
        /// Into `body`, at most `limit` bytes.
        case buffer(limit: Int)
        case stream(any HTTPBodySink)
    }

    let target: RequestTarget
    /// The connection's watchdog entry: a header deadline until the head is complete, none
    /// while the request is served, the idle deadline once it is answered.
    let deadline: ConnectionDeadline?
    var head: HTTPRequestHead?
    var mode = Body.buffer(limit: 0)
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// Set once `respond(to:)` has been handed the request: from then on a streamed body is
    /// the responder's, and is not abandoned.
    var dispatched = false
    /// Where `respond(to:)` runs: this connection's MHD thread, or a pool worker.
    var respondOn = ResponderThread.worker
    /// Refused on its head with a body declared: drain that body on close (`LingeringSockets`).
    var lingersOnClose = false
    /// Set while the request is suspended, for the worker to resume.
    var connection: OpaquePointer?
    /// The responder's answer, waiting for MHD to call the handler again after resume.
    var response: HTTPResponse?

    init(target: RequestTarget, deadline: ConnectionDeadline?) {
        self.target = target
        self.deadline = deadline
    }
}

// MARK: - Callbacks (file-scope functions: a capturing closure cannot be a C function pointer)

/// MHD_OPTION_URI_LOG_CALLBACK: the request target exactly as sent, before MHD splits and
/// unescapes it in place. The returned state becomes the request's `*req_cls`.
func requestStarted(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls, let uri, let connection else { return nil }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let raw = Array(UnsafeRawBufferPointer(start: uri, count: strlen(uri)))
    // A request line has arrived: on a kept-alive connection the rest of its head is due within
    // the header timeout (the first head of a connection is due within it of connecting).
    let deadline = connectionDeadline(of: connection)
    deadline?.requestLineArrived(headDueBy: ConnectionWatchdog.after(seconds: context.headerTimeoutSeconds))
    return Unmanaged.passRetained(RequestState(target: RequestTarget(raw: raw), deadline: deadline)).toOpaque()
}

/// MHD_OPTION_NOTIFY_COMPLETED: frees the request's state, however the request ended. A
/// streamed body whose request never reached `respond(to:)` (client gone, timeout, refused
/// chunk, server stopping) is abandoned here: MHD calls this once per request.
func requestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let requestContext, let pointer = requestContext.pointee else { return }
    requestContext.pointee = nil
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    if case .stream(let sink) = state.mode, !state.dispatched {
        sink.abandon()
    }
    guard let cls else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    if state.lingersOnClose, code == .REQUEST_TERMINATED_COMPLETED_OK, let connection {
        lingerOnClose(connection, context: context)
    }
    // Kept alive, the connection now waits for its next request line.
    state.deadline?.requestCompleted(idleUntil: ConnectionWatchdog.after(seconds: context.idleTimeoutSeconds))
    if state.head != nil { context.inFlight.subtract(1, ordering: .releasing) }
}

/// The access handler. MHD calls it once when the headers are complete (admission), once per
/// chunk of body, and once more when the body is complete. On that call a request admitted to
/// run on the connection's thread is answered at once; any other is handed to a worker and
/// suspended, and MHD calls once more after the worker resumes the connection, which queues
/// the response. Only refusals are answered on the first call: that skips `100 Continue` and
/// the body, and MHD then closes the connection; any other answer there would turn keep-alive
/// off.
func handleAccess(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let method, let uploadDataSize, let statePointer = requestContext?.pointee else {
        return .NO  // unreachable with the URI callback installed; MHD closes the connection
    }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeUnretainedValue()

    guard let head = state.head else {
        return admit(state, method: String(cString: method), on: connection, context: context)
    }

    let received = uploadDataSize.pointee
    if received > 0 {
        guard let uploadData else { return .NO }  // MHD passes data with every non-zero size
        uploadDataSize.pointee = 0
        return take(UnsafeRawBufferPointer(start: uploadData, count: received), into: state)
    }

    if let response = state.response {
        state.response = nil
        state.connection = nil
        return queue(response, on: connection)
    }
    var sink: (any HTTPBodySink)?
    if case .stream(let streamed) = state.mode { sink = streamed }
    let request = HTTPRequest(
        method: head.method, path: head.path, rawQuery: head.rawQuery, headers: head.headers,
        body: state.body, bodyTooLarge: state.bodyTooLarge, remoteAddress: head.remoteAddress, bodySink: sink)
    state.body = []
    state.dispatched = true
    let responder = context.responder
    if state.respondOn == .connection {
        return queue(responder.respond(to: request), on: connection)
    }
    state.connection = connection
    let dispatched = context.pool.submit(
        {
            state.response = responder.respond(to: request)
            // MHD then calls this handler again (upload size 0), which queues the response.
            MHD_resume_connection(state.connection)
        },
        accepted: { MHD_suspend_connection(connection) })
    if dispatched { return .YES }
    // The pool is shut down (stop() is past its drain wait): answer on this thread.
    state.connection = nil
    return queue(responder.respond(to: request), on: connection)
}

/// The first call: framing check, then the responder's admission. A refusal is queued now,
/// before MHD would send `100 Continue` or read a body byte; MHD then drops whatever the
/// client sent after the head and closes the connection once the answer is out. (A
/// Content-Length MHD cannot read as one number, such as `5, 5`, never gets here: MHD 0.9.75
/// answers it with its own 400 and closes the connection.)
private func admit(
    _ state: RequestState, method: String, on connection: OpaquePointer, context: ServerContext
) -> MHD_Result {
    let headers = requestHeaders(connection)
    let head = HTTPRequestHead(
        method: method, path: state.target.path, rawQuery: state.target.rawQuery, headers: headers,
        remoteAddress: CShims_mhd_client_address(connection).map(ListenAddress.text(of:)) ?? "")
    state.head = head
    state.deadline?.clear()
    context.inFlight.add(1, ordering: .relaxed)
    // A refusal is answered before the body is read: a body still on its way is drained on close.
    state.lingersOnClose = headers["Transfer-Encoding"] != nil || headers["Content-Length"].map { $0 != "0" } == true
    if let problem = HTTPFraming.problem(in: headers) {
        return queueClosing(context.responder.refuse(head, reason: problem), on: connection)
    }
    switch context.responder.admit(head) {
    case .reject(let response):
        return queueClosing(response, on: connection)
    case .stream(let sink):
        state.lingersOnClose = false
        state.mode = .stream(sink)
    case .buffer(let requested, let thread):
        state.lingersOnClose = false
        let limit = max(0, requested)
        state.respondOn = thread
        // Framing is checked above, so a Content-Length here is one plain value.
        let declared = headers["Content-Length"].flatMap(UInt64.init)
        state.mode = .buffer(limit: limit)
        if let declared {
            if declared > UInt64(limit) {
                state.bodyTooLarge = true
            } else {
                state.body.reserveCapacity(Int(declared))
            }
        }
    }
    return .YES
}

/// Hands a duplicate of the connection's socket to the watchdog's lingering close: MHD closes
/// its own descriptor after this, and the duplicate keeps the socket open while the rest of the
/// refused body is drained.
private func lingerOnClose(_ connection: OpaquePointer, context: ServerContext) {
    let socket = CShims_mhd_connection_fd(connection)
    guard socket >= 0 else { return }
    let duplicate = fcntl(socket, F_DUPFD_CLOEXEC, 0)
    guard duplicate >= 0 else { return }  // out of descriptors: MHD's close resets, as before
    context.watchdog.lingering.adopt(duplicate, now: ConnectionWatchdog.now())
}

/// One chunk of body. Returning `.NO` makes MHD close the connection without an answer
/// (MHD 0.9.75 refuses to queue a response while a body is still being received).
private func take(_ chunk: UnsafeRawBufferPointer, into state: RequestState) -> MHD_Result {
    switch state.mode {
    case .stream(let sink):
        // A refused chunk ends the request; NOTIFY_COMPLETED then abandons the sink.
        return sink.write(chunk) ? .YES : .NO
    case .buffer(let limit):
        if state.bodyTooLarge {
            // A declared length over the limit: the bytes are read and dropped, so the
            // connection stays usable for the 413 and the next request.
            return .YES
        }
        guard chunk.count <= limit - state.body.count else {
            // Only a chunked body gets here (a declared length was checked on admission). It
            // is not drained: its end is whatever the client wants it to be.
            state.body = []
            return .NO
        }
        state.body.append(contentsOf: chunk)
        return .YES
    }
}

/// Collects .HEADER_KIND values in arrival order, repeated names included.
private final class HeaderCollector {
    var headers = HTTPHeaders()
}

private func collectHeader(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ name: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let name else { return .YES }
    let collector = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.headers.add(String(cString: name), value.map { String(cString: $0) } ?? "")
    return .YES
}

private func requestHeaders(_ connection: OpaquePointer) -> HTTPHeaders {
    let collector = HeaderCollector()
    withExtendedLifetime(collector) {
        // Returns the number of headers visited; nothing to check.
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, collectHeader, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.headers
}
