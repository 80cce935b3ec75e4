public import PreviewCore
import Synchronization

/// An HTTP/1.1 server that asks an `HTTPResponder` to admit each request on its head, then
/// hands it the complete request.
///
/// Backed by libmicrohttpd with `ioThreads` I/O threads and a pool of `threadPoolSize` worker
/// threads. `respond(to:)` is called synchronously on the connection's I/O thread or on a
/// worker, as `admit` chose for the request (`ResponderThread`); a blocking responder holds
/// that thread for the request. `admit` and `refuse` run on the I/O threads and must not block;
/// a streamed body's sink is written on body-writer threads. A watchdog thread closes
/// connections past their header, body or idle deadline, or below an upload's minimum rate
/// (`HTTPServerConfiguration`).
/// Sendable without `@unchecked`: the running daemon lives inside a `Mutex`.
public final class HTTPServer: Sendable {
    private let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let daemon = Mutex<MHDDaemon?>(nil)
    private let connections = ConnectionCount()

    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    /// Binds and starts serving; returns the bound port (the real one when `port` was 0).
    /// Throws `HTTPServerError` (address in use, bad host, already running).
    /// A stopped server may be started again.
    public func start() throws -> UInt16 {
        try daemon.withLock { (daemon: inout MHDDaemon?) throws(HTTPServerError) -> UInt16 in
            guard daemon == nil else { throw .alreadyRunning }
            let started = try MHDDaemon(configuration: configuration, responder: responder, connections: connections)
            daemon = started
            return started.port
        }
    }

    /// Client connections open now (accepted and not yet closed), for the open-connections gauge.
    /// One atomic load: cheap enough for every scrape.
    public var openConnections: Int { connections.open.load(ordering: .relaxed) }

    /// Stops accepting, lets in-flight requests finish (up to `shutdownTimeoutSeconds`),
    /// closes every connection and frees the daemon. Idempotent.
    public func stop() {
        daemon.withLock { daemon in
            daemon?.stop()
            daemon = nil
        }
    }
}

/// The connections a server has open, counted by its connection callback.
final class ConnectionCount: Sendable {
    let open = Atomic<Int>(0)
}
