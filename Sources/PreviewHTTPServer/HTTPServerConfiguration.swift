/// How an `HTTPServer` listens and how much it lets each connection use.
public struct HTTPServerConfiguration: Sendable {
    /// An IPv4 literal (`127.0.0.1`, `0.0.0.0`), an IPv6 literal (`::1`, `::`), or `localhost`.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port; `HTTPServer.start()` returns the one bound.
    public var port: UInt16 = 0
    /// libmicrohttpd threads. Each owns a share of the connections: it reads and writes them and
    /// runs the responder of every request admitted with `ResponderThread.connection`, so this
    /// bounds those requests in progress at once. Sized for responders that block briefly on
    /// Redis: on 2 cores 2, 4 and 8 served one-Redis-call requests alike within noise, and each
    /// thread waits out a Redis round trip, so 8 also suit a Redis across a network.
    public var ioThreads: Int = 8
    /// Worker threads, for requests admitted with `ResponderThread.worker` or `.stream`: they may
    /// block long (object storage, disk), so this bounds those requests in progress at once.
    /// As many body-writer threads hand streamed bodies to their sinks, off the I/O threads.
    public var threadPoolSize: Int = 8
    /// Connections open at once that serve requests, from all clients. A connection holding a
    /// long-lived answer (`RequestAdmission.openStream`) is not one of them: it holds a stream
    /// slot instead, so open streams never take what requests need. Past the limit a new
    /// connection is closed at once.
    public var connectionLimit: Int = 1024
    /// Of those, from one peer address, so one client cannot take every slot. An IPv6 client is
    /// counted by its /64, which one host usually has whole.
    public var maxConnectionsPerAddress: Int = 64
    /// Long-lived answers (event streams) open at once, from all clients: past it such a request
    /// is refused (`HTTPRefusal.streamSlotsFull`). Each holds a socket (the process's descriptor
    /// limit must hold these and `connectionLimit`) and about 20 KiB; 0 refuses every one.
    public var maxStreams: Int = 10_000
    /// Of those, from one peer address group (an IPv4 address, an IPv6 /64).
    public var maxStreamsPerAddress: Int = 64
    /// Seconds a client has to send a complete request head: counted from connecting, and on a
    /// kept-alive connection from the moment its request line arrives. Absolute: a client
    /// trickling bytes does not extend it.
    public var headerTimeoutSeconds: Int = 10
    /// Seconds a kept-alive connection may wait for its next request line (absolute), and
    /// seconds without any progress before a request body or response is given up.
    public var idleTimeoutSeconds: Int = 30
    /// Seconds a request admitted with `.buffer` has to send its whole body, counted from its
    /// complete head. Absolute, like the header timeout: such bodies are small (API messages).
    public var bodyTimeoutSeconds: Int = 10
    /// Bytes per second a body admitted with `.stream` (an upload) must average over each
    /// `bodyRateWindowSeconds`, or its connection is closed; 0 turns the check off. Uploads
    /// may be large, so they get a floor on their rate rather than an absolute deadline.
    public var minimumStreamedBodyBytesPerSecond: Int = 4096
    public var bodyRateWindowSeconds: Int = 20
    public var listenBacklog: Int = 511
    /// Per-connection memory; bounds the request line plus headers. libmicrohttpd 0.9.75 clears
    /// the whole of it after every request, so it is resident for each kept-alive connection and
    /// cleared at each request: 16 KiB holds the longest bearer token (8 KiB) with room to spare,
    /// and 1,000 connections in 16 MiB.
    public var connectionMemoryLimit: Int = 16 * 1024
    /// Seconds `HTTPServer.stop()` waits for requests in progress to be answered before it
    /// closes every connection.
    public var shutdownTimeoutSeconds: Int = 10

    public init() {}
}

/// Why an `HTTPServer` could not start.
public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// `host` is neither an IP literal nor `localhost`.
    case invalidHost(String)
    /// A configuration number is out of range (`name`, value).
    case invalidConfiguration(String, Int)
    /// `start()` was called on a server that is already running.
    case alreadyRunning
    /// libmicrohttpd refused to start, e.g. the address is in use; `reason` is its message.
    case startFailed(host: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .invalidHost(let host):
            return "invalid listen host \"\(host)\": use an IPv4 or IPv6 literal or localhost"
        case .invalidConfiguration(let name, let value):
            return "invalid HTTP server setting \(name)=\(value)"
        case .alreadyRunning:
            return "HTTP server is already running"
        case .startFailed(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason)"
        }
    }
}
