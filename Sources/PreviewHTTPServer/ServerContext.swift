import PreviewCore
import Synchronization

/// What every callback of one daemon shares. Sendable: immutable apart from an atomic.
final class ServerContext: Sendable {
    let responder: any HTTPResponder
    let pool: ResponderPool
    /// Threads that hand streamed bodies to their sinks (`StreamedBody`), off the I/O threads.
    let writers: ResponderPool
    /// Streamed bodies being received, for `stop()` to resume their paused connections.
    let bodies = StreamedBodies()
    /// Streamed answers (event streams) being sent, for `stop()` to end.
    let streams: ResponseStreams
    /// The slots streamed answers hold instead of a connection slot.
    let streamSlots: StreamSlots
    /// Connections that serve requests (all but those holding a stream slot), against
    /// `connectionLimit`.
    let requestConnections = Atomic<Int>(0)
    let connectionLimit: Int
    let watchdog: ConnectionWatchdog
    /// Connections between NOTIFY_STARTED and NOTIFY_CLOSED, shared with the `HTTPServer`.
    let connections: ConnectionCount
    /// Seconds a client has to send a request head: from connecting, or from the request line
    /// on a kept-alive connection.
    let headerTimeoutSeconds: Int64
    /// Seconds a kept-alive connection may wait for its next request line.
    let idleTimeoutSeconds: Int64
    /// Seconds a buffered body has, from its complete head.
    let bodyTimeoutSeconds: Int64
    /// Bytes per second a streamed body must average; 0 for no floor.
    let minimumStreamedBodyRate: Int64
    /// Connections open per client address group, against the per-address limit.
    let perAddress: ConnectionsPerAddress
    /// Requests between admission and NOTIFY_COMPLETED, for a graceful stop. A head still
    /// arriving is not counted: stop() does not wait for a client that may never finish it.
    let inFlight = Atomic<Int>(0)

    init(
        responder: any HTTPResponder, pool: ResponderPool, writers: ResponderPool, watchdog: ConnectionWatchdog,
        connections: ConnectionCount,
        headerTimeoutSeconds: Int64, idleTimeoutSeconds: Int64, bodyTimeoutSeconds: Int64,
        minimumStreamedBodyRate: Int64, perAddress: ConnectionsPerAddress, connectionLimit: Int,
        streamSlots: StreamSlots, streams: ResponseStreams
    ) {
        self.connectionLimit = connectionLimit
        self.streamSlots = streamSlots
        self.streams = streams
        self.responder = responder
        self.pool = pool
        self.writers = writers
        self.watchdog = watchdog
        self.connections = connections
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.minimumStreamedBodyRate = minimumStreamedBodyRate
        self.perAddress = perAddress
    }
}

/// The streamed answers a daemon is sending, each watched for its client leaving
/// (`PeerHangups`). Once `endAll()` has run, every stream added is ended at once: the server is
/// stopping.
final class ResponseStreams: Sendable {
    private struct Held {
        let stream: any ResponseStream
        /// Its `PeerHangups` token; nil when its socket could not be watched.
        let token: UInt64?
    }

    private let hangups: PeerHangups
    private let state = Mutex<(streams: [ObjectIdentifier: Held], closed: Bool)>(([:], false))

    init(hangups: PeerHangups) {
        self.hangups = hangups
    }

    /// Registers `stream`, sent on `socket`; false once `endAll()` has run.
    func add(_ stream: any ResponseStream, socket: Int32) -> Bool {
        guard !state.withLock({ $0.closed }) else { return false }
        let token = socket >= 0 ? hangups.watch(socket, for: stream) : nil
        return state.withLock { state in
            guard !state.closed else {
                if let token { hangups.forget(token) }
                return false
            }
            state.streams[ObjectIdentifier(stream)] = Held(stream: stream, token: token)
            return true
        }
    }

    func remove(_ stream: any ResponseStream) {
        let held = state.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
        if let token = held?.token { hangups.forget(token) }
    }

    func endAll() {
        let streams = state.withLock { state in
            state.closed = true
            return state.streams.values.map(\.stream)
        }
        for stream in streams { stream.end() }
    }

    /// Stops watching for clients leaving: the daemon has closed every connection.
    func stopWatching() {
        hangups.stop()
    }
}
