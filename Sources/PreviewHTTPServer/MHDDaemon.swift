// The files MHD*.swift are the only ones that call libmicrohttpd (and its shims); raw pointers
// stay in them. This one: the daemon and its connections (MHDRequests.swift, MHDResponses.swift).
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
        let headerTimeout = try Self.count("headerTimeoutSeconds", configuration.headerTimeoutSeconds, minimum: 1)
        let idleTimeout = try Self.count("idleTimeoutSeconds", configuration.idleTimeoutSeconds, minimum: 1)
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
        guard let watchdog = ConnectionWatchdog() else {
            pool.shutdown()
            throw .startFailed(
                host: configuration.host, port: configuration.port, reason: "cannot create the watchdog thread")
        }
        let context = ServerContext(
            responder: responder, pool: pool, watchdog: watchdog, connections: connections,
            headerTimeoutSeconds: Int64(headerTimeout), idleTimeoutSeconds: Int64(idleTimeout))
        var reason = [CChar](repeating: 0, count: 512)
        let started = address.withSocketAddress { socketAddress -> OpaquePointer? in
            var settings = CShims_mhd_settings(
                flags: flags,
                thread_pool_size: ioThreads,
                connection_limit: connectionLimit,
                per_ip_connection_limit: perAddress,
                // MHD's inactivity timeout bounds a body or response that stalls; the watchdog
                // bounds heads and idle keep-alive connections absolutely.
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
            watchdog.stop()
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
    /// `shutdownTimeoutSeconds`), joins
    /// the responder workers (each resumes its connection before finishing, so none stays
    /// suspended, which MHD_stop_daemon does not allow), then stops the daemon, which closes
    /// idle keep-alive connections, and last the watchdog, which has forgotten them all.
    func stop() {
        guard let handle else { return }
        self.handle = nil
        let listener = MHD_quiesce_daemon(handle)
        // MHD no longer accepts, but the socket stays open until MHD_stop_daemon (a thread may
        // still hold it), so the kernel would go on completing handshakes into the backlog;
        // shutting it down makes new connections fail at once (Linux resets them), so a
        // client or load balancer retries elsewhere instead of waiting.
        if listener >= 0 { _ = shutdown(listener, Int32(SHUT_RDWR)) }  // ignored: the socket closes below anyway
        let deadline = ContinuousClock.now + drainTimeout
        while context.inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            usleep(2_000)
        }
        context.pool.shutdown()
        MHD_stop_daemon(handle)
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

/// What every callback of one daemon shares. Sendable: immutable apart from an atomic.
final class ServerContext: Sendable {
    let responder: any HTTPResponder
    let pool: ResponderPool
    let watchdog: ConnectionWatchdog
    /// Connections between NOTIFY_STARTED and NOTIFY_CLOSED, shared with the `HTTPServer`.
    let connections: ConnectionCount
    /// Seconds a client has to send a request head: from connecting, or from the request line
    /// on a kept-alive connection.
    let headerTimeoutSeconds: Int64
    /// Seconds a kept-alive connection may wait for its next request line.
    let idleTimeoutSeconds: Int64
    /// Requests between admission and NOTIFY_COMPLETED, for a graceful stop. A head still
    /// arriving is not counted: stop() does not wait for a client that may never finish it.
    let inFlight = Atomic<Int>(0)

    init(
        responder: any HTTPResponder, pool: ResponderPool, watchdog: ConnectionWatchdog, connections: ConnectionCount,
        headerTimeoutSeconds: Int64, idleTimeoutSeconds: Int64
    ) {
        self.responder = responder
        self.pool = pool
        self.watchdog = watchdog
        self.connections = connections
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}

/// MHD_OPTION_NOTIFY_CONNECTION: puts each new connection under the watchdog with the header
/// deadline, and takes it off when MHD reports it closed, which MHD does before it closes
/// the socket (MHD_cleanup_connections, and the failure path of internal_add_connection).
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
        let deadline = ConnectionDeadline(
            socket: socket, deadline: ConnectionWatchdog.after(seconds: context.headerTimeoutSeconds))
        socketContext.pointee = Unmanaged.passRetained(deadline).toOpaque()
        context.connections.open.add(1, ordering: .relaxed)
        context.watchdog.watch(deadline)
    case .CONNECTION_NOTIFY_CLOSED:
        guard let pointer = socketContext.pointee else { return }
        socketContext.pointee = nil
        context.connections.open.subtract(1, ordering: .relaxed)
        context.watchdog.forget(Unmanaged<ConnectionDeadline>.fromOpaque(pointer).takeRetainedValue())
    default:
        return
    }
}

/// The watchdog entry of `connection`, set up by `connectionChanged`.
func connectionDeadline(of connection: OpaquePointer) -> ConnectionDeadline? {
    CShims_mhd_socket_context(connection).map { Unmanaged<ConnectionDeadline>.fromOpaque($0).takeUnretainedValue() }
}
