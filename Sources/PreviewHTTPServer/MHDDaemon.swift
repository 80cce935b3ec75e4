// This file is the only one that calls libmicrohttpd (and its shims); MHDDaemon+Streams.swift
// (answers written over time) reaches MHD through the four functions at its end. The daemon and its connections, then
// the request callbacks (from a request's line to its completion: admission, body, hand-off to
// the responder), then the responses. What they share without
// touching MHD is in ServerContext.swift and RequestState.swift.
import CMicroHTTPD
import CShimsMHD
import Glibc
import PreviewCore
import Synchronization

/// Owns one running libmicrohttpd daemon; stopped by `stop()` or at deinit.
final class MHDDaemon {
    let port: UInt16
    /// How long `stop()` waits for requests already being handled to be answered.
    private let drainTimeout: Duration
    private var handle: OpaquePointer?
    /// Reached by the C callbacks through an unretained pointer; kept alive by this object
    /// until MHD_stop_daemon has returned.
    private let context: ServerContext

    init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, connections: ConnectionCount
    ) throws(HTTPServerError) {
        let address = try ListenAddress(host: configuration.host, port: configuration.port)
        let poolSize = try Self.count("threadPoolSize", configuration.threadPoolSize, minimum: 1)
        let ioThreads = try Self.count("ioThreads", configuration.ioThreads, minimum: 1)
        let connectionLimit = try Self.count("connectionLimit", configuration.connectionLimit, minimum: 1)
        let perAddress = try Self.count("maxConnectionsPerAddress", configuration.maxConnectionsPerAddress, minimum: 1)
        let maxStreams = try Self.count("maxStreams", configuration.maxStreams, minimum: 0)
        let streamsPerAddress = try Self.count(
            "maxStreamsPerAddress", configuration.maxStreamsPerAddress, minimum: 1)
        // MHD holds both kinds: the split between them is ours (connectionChanged, admit).
        let (allConnections, overflow) = connectionLimit.addingReportingOverflow(maxStreams)
        guard !overflow else { throw .invalidConfiguration("maxStreams", configuration.maxStreams) }
        let headerTimeout = try Self.count("headerTimeoutSeconds", configuration.headerTimeoutSeconds, minimum: 1)
        let idleTimeout = try Self.count("idleTimeoutSeconds", configuration.idleTimeoutSeconds, minimum: 1)
        let bodyTimeout = try Self.count("bodyTimeoutSeconds", configuration.bodyTimeoutSeconds, minimum: 1)
        let minimumRate = try Self.count(
            "minimumStreamedBodyBytesPerSecond", configuration.minimumStreamedBodyBytesPerSecond, minimum: 0)
        let rateWindow = try Self.count("bodyRateWindowSeconds", configuration.bodyRateWindowSeconds, minimum: 1)
        let backlog = try Self.count("listenBacklog", configuration.listenBacklog, minimum: 1)
        let memory = try Self.count("connectionMemoryLimit", configuration.connectionMemoryLimit, minimum: 4096)

        // Poll, not epoll or auto: MHD 0.9.75's epoll loop stalls when exactly 128 events are
        // ready (reproduced at 128 and 256 connections). ITC lets stop() quiesce the listener
        // first. An MHD thread owns its connections: a request admitted to run on it is answered
        // there, stalling that thread's other connections meanwhile; any other is suspended while
        // a ResponderPool worker runs the responder, so a slow responder holds a worker only.
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
            | MHD_USE_ERROR_LOG.rawValue | MHD_USE_ITC.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        guard let pool = ResponderPool(threadCount: Int(poolSize)) else {
            throw .startFailed(
                host: configuration.host, port: configuration.port, reason: "cannot create worker threads")
        }
        // As many body writers as workers: a sink blocked on a slow disk holds one of them.
        guard let writers = ResponderPool(threadCount: Int(poolSize)) else {
            pool.shutdown()
            throw .startFailed(
                host: configuration.host, port: configuration.port, reason: "cannot create body writer threads")
        }
        guard let watchdog = ConnectionWatchdog(rateWindowSeconds: Int64(rateWindow)) else {
            pool.shutdown()
            writers.shutdown()
            throw .startFailed(
                host: configuration.host, port: configuration.port, reason: "cannot create the watchdog thread")
        }
        guard let hangups = PeerHangups() else {
            pool.shutdown()
            writers.shutdown()
            watchdog.stop()
            throw .startFailed(
                host: configuration.host, port: configuration.port, reason: "cannot create the stream hang-up watcher")
        }
        let context = ServerContext(
            responder: responder, pool: pool, writers: writers, watchdog: watchdog, connections: connections,
            headerTimeoutSeconds: Int64(headerTimeout), idleTimeoutSeconds: Int64(idleTimeout),
            bodyTimeoutSeconds: Int64(bodyTimeout), minimumStreamedBodyRate: Int64(minimumRate),
            perAddress: ConnectionsPerAddress(limit: Int(perAddress)), connectionLimit: Int(connectionLimit),
            streamSlots: StreamSlots(limit: Int(maxStreams), perAddressLimit: Int(streamsPerAddress)),
            streams: ResponseStreams(hangups: hangups))
        var reason = [CChar](repeating: 0, count: 512)
        let started = address.withSocketAddress { socketAddress -> OpaquePointer? in
            var settings = CShims_mhd_settings(
                flags: flags,
                thread_pool_size: ioThreads,
                connection_limit: allConnections,
                // Counted here instead (ConnectionsPerAddress), by IPv6 /64 rather than address.
                per_ip_connection_limit: 0,
                // MHD's inactivity timeout bounds a response that stalls; the watchdog bounds
                // heads, buffered bodies and idle keep-alive connections absolutely, and
                // streamed bodies by their rate.
                connection_timeout_seconds: idleTimeout,
                listen_backlog: backlog,
                connection_memory_limit: Int(memory),
                address: socketAddress,
                access_handler: handleAccess,
                completed: requestCompleted,
                uri_log: requestStarted,
                notify_connection: connectionChanged,
                context: Unmanaged.passUnretained(context).toOpaque())
            return CShims_mhd_start(&settings, &reason, reason.count)
        }
        guard let started else {
            pool.shutdown()
            writers.shutdown()
            watchdog.stop()
            hangups.stop()
            let message = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .startFailed(
                host: configuration.host, port: configuration.port,
                reason: message.isEmpty ? "libmicrohttpd could not start" : message)
        }
        self.handle = started
        self.context = context
        self.drainTimeout = .seconds(max(0, configuration.shutdownTimeoutSeconds))
        self.port = CShims_mhd_bound_port(started)
    }

    deinit { stop() }

    /// Quiesces the listener, waits for in-flight requests (bounded by the configuration's
    /// `shutdownTimeoutSeconds`), cancels the uploads still being received (resuming those
    /// paused for their writer), joins the responder workers (each resumes its connection
    /// before finishing, so none stays suspended, which MHD_stop_daemon does not allow), then
    /// stops the daemon, which closes idle keep-alive connections and abandons cancelled
    /// uploads, then joins the body writers once they have run those abandons, and last the
    /// watchdog, which has forgotten every connection.
    func stop() {
        guard let handle else { return }
        self.handle = nil
        let listener = MHD_quiesce_daemon(handle)
        // MHD no longer accepts, but the socket stays open until MHD_stop_daemon (a thread may
        // still hold it), so the kernel would go on completing handshakes into the backlog;
        // shutting it down makes new connections fail at once (Linux resets them), so a
        // client or load balancer retries elsewhere instead of waiting.
        if listener >= 0 { _ = shutdown(listener, Int32(SHUT_RDWR)) }  // ignored: the socket closes below anyway
        // Event streams never finish by themselves: ended now, they complete like any request.
        context.streams.endAll()
        let deadline = ContinuousClock.now + drainTimeout
        while context.inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            usleep(2_000)
        }
        context.bodies.cancelAll()
        context.pool.shutdown()
        MHD_stop_daemon(handle)
        context.streams.stopWatching()
        context.writers.shutdown()
        context.watchdog.stop()
        // After quiesce MHD leaves the listening socket to us, to close once stopped.
        if listener >= 0 { _ = close(listener) }  // nothing useful to do if close fails
    }

    private static func count(_ name: String, _ value: Int, minimum: UInt32) throws(HTTPServerError) -> UInt32 {
        guard let narrow = UInt32(exactly: value), narrow >= minimum else {
            throw .invalidConfiguration(name, value)
        }
        return narrow
    }
}

/// MHD_OPTION_NOTIFY_CONNECTION: puts each new connection under the watchdog with the header
/// deadline, and takes it off when MHD reports it closed, which MHD does before it closes
/// the socket (MHD_cleanup_connections, and the failure path of internal_add_connection).
/// A connection over its address group's limit is shut down at once: MHD then reads its end
/// and closes it, and reports it closed like any other, which is where it is uncounted.
private func connectionChanged(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection, let socketContext else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let socket = CShims_mhd_connection_fd(connection)
        guard socket >= 0 else { return }
        let group = CShims_mhd_client_address(connection).map(ListenAddress.group(of:)) ?? .none
        let deadline = ConnectionDeadline(
            socket: socket, deadline: ConnectionWatchdog.after(seconds: context.headerTimeoutSeconds),
            addressGroup: group)
        socketContext.pointee = Unmanaged.passRetained(deadline).toOpaque()
        context.connections.open.add(1, ordering: .relaxed)
        context.watchdog.watch(deadline)
        // Every connection starts as one that serves requests; the stream slots are MHD's room
        // beyond `connectionLimit`, which only `admit` hands out.
        let withinLimit = context.requestConnections.add(1, ordering: .relaxed).newValue <= context.connectionLimit
        let withinAddressLimit = context.perAddress.add(group)
        if !withinLimit || !withinAddressLimit {
            // Fails only if the peer has already gone, which MHD notices either way.
            _ = shutdown(socket, Int32(SHUT_RDWR))
        }
    case .CONNECTION_NOTIFY_CLOSED:
        guard let pointer = socketContext.pointee else { return }
        socketContext.pointee = nil
        context.connections.open.subtract(1, ordering: .relaxed)
        let deadline = Unmanaged<ConnectionDeadline>.fromOpaque(pointer).takeRetainedValue()
        if deadline.holdsStreamSlot.load(ordering: .relaxed) {
            context.streamSlots.release(deadline.addressGroup)
        } else {
            context.requestConnections.subtract(1, ordering: .relaxed)
            context.perAddress.remove(deadline.addressGroup)
        }
        context.watchdog.forget(deadline)
    default:
        return
    }
}

/// The watchdog entry of `connection`, set up by `connectionChanged`.
func connectionDeadline(of connection: OpaquePointer) -> ConnectionDeadline? {
    CShims_mhd_socket_context(connection).map { Unmanaged<ConnectionDeadline>.fromOpaque($0).takeUnretainedValue() }
}

// MARK: - Request callbacks (file-scope functions: a capturing closure cannot be a C function pointer)

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
    guard let cls else { return }  // unreachable: the daemon always passes its context
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    if case .stream(let body) = state.mode {
        context.bodies.remove(body)
        state.deadline?.whenExpired(nil)
        if !state.dispatched { body.abandon() }
    }
    if state.lingersOnClose, code == .REQUEST_TERMINATED_COMPLETED_OK, let connection {
        lingerOnClose(connection, context: context)
    }
    // Kept alive, the connection now waits for its next request line.
    state.deadline?.requestCompleted(idleUntil: ConnectionWatchdog.after(seconds: context.idleTimeoutSeconds))
    if state.head != nil { context.inFlight.subtract(1, ordering: .releasing) }
}

/// The access handler. MHD calls it once when the headers are complete (admission), once per
/// chunk of body (a streamed chunk left unconsumed while its writer is behind is offered again
/// once the writer resumes the connection), and once more when the body is complete. On that call a request admitted to
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
        let chunk = UnsafeRawBufferPointer(start: uploadData, count: received)
        if case .stream(let body) = state.mode {
            return offer(chunk, to: body, state: state, size: uploadDataSize, on: connection, context: context)
        }
        uploadDataSize.pointee = 0
        state.deadline?.bodyReceived(received)
        return take(chunk, into: state)
    }

    if let response = state.response {
        state.response = nil
        state.connection = nil
        return queue(answer(response, to: state), on: connection, streams: context.streams)
    }
    if state.closesUnanswered {
        state.connection = nil
        return .NO
    }
    let streamed: StreamedBody?
    if case .stream(let body) = state.mode { streamed = body } else { streamed = nil }
    let sink = streamed?.sink
    let request = HTTPRequest(
        method: head.method, path: head.path, rawQuery: head.rawQuery, headers: head.headers,
        body: state.body, bodyTooLarge: state.bodyTooLarge, remoteAddress: head.remoteAddress, bodySink: sink)
    state.body = []
    state.dispatched = true
    // The body is in: the server, not the client, owes the next step.
    state.deadline?.clear()
    let responder = context.responder
    if state.respondOn == .connection {
        return queue(answer(responder.respond(to: request), to: state), on: connection, streams: context.streams)
    }
    state.connection = connection
    let dispatched = context.pool.submit(
        {
            if let response = respond(to: request, streamed: streamed, responder: responder) {
                state.response = response
            } else {
                state.closesUnanswered = true
            }
            // MHD then calls this handler again (upload size 0), which queues the response.
            MHD_resume_connection(state.connection)
        },
        accepted: { MHD_suspend_connection(connection) })
    if dispatched { return .YES }
    // The pool is shut down (stop() is past its drain wait): answer on this thread.
    state.connection = nil
    guard let response = respond(to: request, streamed: streamed, responder: responder) else { return .NO }
    return queue(answer(response, to: state), on: connection, streams: context.streams)
}

/// The answer as sent: a request that held a stream slot closes its connection after it, so the
/// slot is never held by a connection that goes on serving requests.
private func answer(_ response: HTTPResponse, to state: RequestState) -> HTTPResponse {
    guard state.closesAfterAnswer else { return response }
    var closing = response
    closing.headers.set("Connection", "close")
    return closing
}

/// The responder's answer, once a streamed body is all in its sink (the publish then runs
/// here, on a worker, too); nil when the body failed on its way there (the sink refused a
/// chunk), which ends the request without an answer, as a refused chunk always does.
private func respond(to request: HTTPRequest, streamed: StreamedBody?, responder: any HTTPResponder) -> HTTPResponse? {
    if let streamed, !streamed.waitUntilWritten() {
        streamed.abandon()
        return nil
    }
    return responder.respond(to: request)
}

/// One chunk of a streamed body: copied for its writer, or, when the body's buffer is full, left
/// in MHD's buffer (`size` unchanged) with the connection suspended until the writer resumes
/// it. A suspended connection has no MHD timeout, so the idle timeout is the watchdog's to
/// keep while it is paused, and the watchdog cancels the body (resuming it) when it closes it.
private func offer(
    _ chunk: UnsafeRawBufferPointer, to body: StreamedBody, state: RequestState, size: UnsafeMutablePointer<Int>,
    on connection: OpaquePointer, context: ServerContext
) -> MHD_Result {
    switch body.offer(chunk, pause: { MHD_suspend_connection(connection) }) {
    case .accepted:
        size.pointee = 0
        if state.paused {
            state.paused = false
            // Back to no absolute deadline: a streamed body answers to its rate floor only.
            state.deadline?.set(.max)
        }
        state.deadline?.bodyReceived(chunk.count)
        return .YES
    case .paused:
        state.paused = true
        state.deadline?.set(ConnectionWatchdog.after(seconds: context.idleTimeoutSeconds))
        return .YES
    case .refused:
        // NOTIFY_COMPLETED then abandons the body.
        return .NO
    }
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
    let hasBody = headers["Transfer-Encoding"] != nil || headers["Content-Length"].map { $0 != "0" } == true
    // A refusal is answered before the body is read: a body still on its way is drained on close.
    state.lingersOnClose = hasBody
    if let problem = HTTPFraming.problem(in: headers) {
        return queueClosing(context.responder.refuse(head, reason: problem), on: connection)
    }
    switch context.responder.admit(head) {
    case .reject(let response):
        return queueClosing(response, on: connection)
    case .stream(let sink):
        state.lingersOnClose = false
        let suspended = MHDConnection(connection)
        let body = StreamedBody(sink: sink, writers: context.writers) { suspended.resume() }
        if !context.bodies.add(body) { body.cancel() }  // the server is stopping
        state.mode = .stream(body)
        state.deadline?.whenExpired { body.cancel() }
        if hasBody, context.minimumStreamedBodyRate > 0 {
            state.deadline?.expectBody(
                minimumBytesPerSecond: context.minimumStreamedBodyRate, now: ConnectionWatchdog.now())
        }
    case .openStream(let thread):
        guard let deadline = state.deadline else {
            return queueClosing(
                context.responder.refuse(head, reason: .streamSlotsFull(perAddress: false)), on: connection)
        }
        if case .failure(let full) = context.streamSlots.take(deadline.addressGroup) {
            let refusal = HTTPRefusal.streamSlotsFull(perAddress: full == .perAddress)
            return queueClosing(context.responder.refuse(head, reason: refusal), on: connection)
        }
        // From now until it closes the connection holds a stream slot, not a connection slot.
        deadline.holdsStreamSlot.store(true, ordering: .relaxed)
        context.requestConnections.subtract(1, ordering: .relaxed)
        context.perAddress.remove(deadline.addressGroup)
        state.closesAfterAnswer = true
        state.lingersOnClose = false
        state.respondOn = thread
        state.mode = .buffer(limit: 0)
        if hasBody {
            state.bodyTooLarge = true
            state.deadline?.set(ConnectionWatchdog.after(seconds: context.bodyTimeoutSeconds))
        }
    case .buffer(let requested, let thread):
        state.lingersOnClose = false
        if hasBody { state.deadline?.set(ConnectionWatchdog.after(seconds: context.bodyTimeoutSeconds)) }
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

/// One chunk of a buffered body. Returning `.NO` makes MHD close the connection without an
/// answer (MHD 0.9.75 refuses to queue a response while a body is still being received).
private func take(_ chunk: UnsafeRawBufferPointer, into state: RequestState) -> MHD_Result {
    switch state.mode {
    case .stream:
        return .NO  // unreachable: streamed chunks go to `offer`
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

// MARK: - Responses

/// Queues a refusal on the first call with `Connection: close`, which MHD honours by closing
/// after the answer (it would anyway, for a response queued before the body).
func queueClosing(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    var closing = response
    closing.headers.set("Connection", "close")
    return queue(closing, on: connection)
}

/// Queues `response`; anything MHD refuses (unopenable file, bad header, odd status) becomes
/// an empty 500 and one log line. A `.stream` body needs `streams`, where `stop()` finds it.
func queue(_ response: HTTPResponse, on connection: OpaquePointer, streams: ResponseStreams? = nil) -> MHD_Result {
    let status: UInt32
    let handle: OpaquePointer
    switch makeResponse(response, on: connection, streams: streams) {
    case .success(let made):
        status = UInt32(response.status)
        handle = made
    case .failure(let problem):
        logError("response-failed", problem)
        guard let empty = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) else { return .NO }
        status = 500
        handle = empty
    }
    // MHD keeps its own reference to a queued response.
    defer { MHD_destroy_response(handle) }
    return MHD_queue_response(connection, status, handle)
}

private struct ResponseProblem: Error, CustomStringConvertible {
    var description: String
}

private func makeResponse(_ response: HTTPResponse, on connection: OpaquePointer, streams: ResponseStreams?)
    -> Result<OpaquePointer, ResponseProblem>
{
    guard (100...999).contains(response.status) else {
        return .failure(ResponseProblem(description: "status \(response.status) out of range"))
    }
    let handle: OpaquePointer
    switch response.body {
    case .bytes(let bytes):
        guard let made = bodyResponse(bytes) else { return .failure(ResponseProblem(description: "out of memory")) }
        handle = made
    case .file(let path, let offset, let length):
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return .failure(ResponseProblem(description: "cannot open \(path): \(String(cString: strerror(errno)))"))
        }
        // On success MHD owns the descriptor and closes it with the response.
        guard let made = MHD_create_response_from_fd_at_offset64(length, fd, offset) else {
            _ = close(fd)  // we still own it; a close error changes nothing
            return .failure(ResponseProblem(description: "cannot serve \(path) offset \(offset) length \(length)"))
        }
        handle = made
    case .stream(let stream):
        guard let streams else { return .failure(ResponseProblem(description: "a streamed answer to a refusal")) }
        guard let made = streamResponse(stream, on: MHDConnection(connection), streams: streams) else {
            return .failure(ResponseProblem(description: "out of memory"))
        }
        handle = made
    }
    for field in response.headers {
        // MHD computes Content-Length from the body (and keeps it for HEAD).
        if HTTPHeaders.sameName(field.name, "Content-Length") { continue }
        guard MHD_add_response_header(handle, field.name, field.value) == .YES else {
            MHD_destroy_response(handle)
            return .failure(ResponseProblem(description: "header \(field.name) rejected"))
        }
    }
    return .success(handle)
}

/// A response whose body MHD sends from `bytes` itself rather than from a copy (a feed answer is
/// 18 KB): a box holding the array goes to MHD with the response and is released by MHD's
/// cleanup callback when the response is destroyed, after its last send. The array is never
/// mutated while boxed, so its contiguous storage stays where its address was taken.
private func bodyResponse(_ bytes: [UInt8]) -> OpaquePointer? {
    guard !bytes.isEmpty else { return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) }
    let body = ResponseBody(bytes)
    let base = body.bytes.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress) }
    let retained = Unmanaged.passRetained(body).toOpaque()
    guard let made = MHD_create_response_from_buffer_with_free_callback_cls(bytes.count, base, releaseBody, retained)
    else {
        Unmanaged<ResponseBody>.fromOpaque(retained).release()
        return nil
    }
    return made
}

private final class ResponseBody {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// MHD's cleanup callback of a `bodyResponse`: the response is gone, and its body with it.
private func releaseBody(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<ResponseBody>.fromOpaque(context).release()
}

/// One structured line on stderr.
private func logError(_ event: String, _ detail: CustomStringConvertible) {
    let line = "component=http-server event=\(event) message=\(LogfmtValue.quoted(detail.description))\n"
    var bytes = Array(line.utf8)
    // Logging is best effort: a failed write to stderr has nowhere to be reported.
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

// MARK: What the rest of the adapter (streamed bodies and answers) reaches MHD through

/// One libmicrohttpd connection: its socket, its watchdog deadline, and suspension. A value
/// that may cross threads (`@unchecked Sendable`): MHD allows `resume` from any thread, and
/// the connection outlives its suspension.
struct MHDConnection: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The connection's socket, nil when MHD has none for it.
    var socket: Int32? {
        let descriptor = CShims_mhd_connection_fd(pointer)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Its watchdog entry (`connectionDeadline(of:)`).
    var deadline: ConnectionDeadline? { connectionDeadline(of: pointer) }

    /// No more calls for the connection until `resume`: it holds no thread meanwhile.
    func suspend() { MHD_suspend_connection(pointer) }

    func resume() { MHD_resume_connection(pointer) }
}

/// What a content reader tells MHD (`MHD_ContentReaderCallback`'s return value).
enum MHDContentRead {
    /// These many bytes were written into MHD's buffer.
    case bytes(Int)
    /// Nothing now: the reader suspended the connection, and MHD asks again once it is resumed.
    case waiting
    /// The answer is complete (`MHD_CONTENT_READER_END_OF_STREAM`).
    case end
    /// The answer failed: MHD closes the connection (`MHD_CONTENT_READER_END_WITH_ERROR`).
    case failed

    /// The value MHD reads (the two C macros are casts Swift does not import).
    var value: Int {
        switch self {
        case .bytes(let count): return count
        case .waiting: return 0
        case .end: return -1
        case .failed: return -2
        }
    }
}

/// A response of unknown length whose bytes MHD asks `read` for as the connection drains;
/// `release` runs when MHD destroys it. Both get `context`.
func callbackResponse(
    context: UnsafeMutableRawPointer,
    read: @escaping @convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafeMutablePointer<CChar>?, Int) -> Int,
    release: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void
) -> OpaquePointer? {
    MHD_create_response_from_callback(UInt64.max, 4096, read, context, release)
}
