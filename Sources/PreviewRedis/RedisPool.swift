import Synchronization

/// Hands worker threads a connection each: idle connections are reused (at most `maxIdle` are kept), new ones
/// dialled on demand, so there are as many connections as threads using Redis at once.
///
/// A connection that broke during a call (`.connection`, `.timeout`, `.protocolError`, or an `.unavailable` reply
/// such as `READONLY` from a demoted primary) is dropped rather than returned; after a `.connection` or
/// `.unavailable` break the idle ones are dropped too, since they point at the same server, which has most likely
/// gone away or stepped down. The next call dials afresh, so the service recovers by itself when Redis is back.
/// The failing call itself is not retried: the command may or may not have run.
///
/// With a `redis-sentinel://` endpoint the pool dials the primary its sentinels name (`SentinelResolver`), and
/// looks it up again when a connection to it breaks; idle connections to a former primary are not reused.
public final class RedisPool: Sendable {
    public let endpoint: RedisEndpoint
    private let maxIdle: Int
    private let connectTimeout: Double
    private let commandTimeout: Double
    private let idle = Mutex<[IdleConnection]>([])
    /// Set for a `redis-sentinel://` endpoint.
    private let sentinels: SentinelResolver?
    /// Latency and failures of every `withConnection` call (shared by the node pools of a cluster).
    public let metrics: RedisMetrics

    /// Dials nothing up front: the first `withConnection` connects.
    public init(
        endpoint: RedisEndpoint, maxIdle: Int = 16, connectTimeout: Double = 1, commandTimeout: Double = 2,
        metrics: RedisMetrics = RedisMetrics()
    ) {
        self.endpoint = endpoint
        self.metrics = metrics
        self.maxIdle = max(0, maxIdle)
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        if case .sentinel(let nodes, let master) = endpoint.address {
            sentinels = SentinelResolver(
                nodes: nodes, master: master, template: endpoint, connectTimeout: connectTimeout,
                commandTimeout: commandTimeout)
        } else {
            sentinels = nil
        }
    }

    /// Runs `body` with a connection the calling thread owns until `body` returns. Do not keep it afterwards.
    public func withConnection<T>(_ body: (RedisConnection) throws -> T) throws -> T {
        let started = ContinuousClock.now
        defer { metrics.latency.observe(started.duration(to: .now)) }
        do {
            return try connected(body)
        } catch let error as RedisError {
            metrics.failed(error)
            throw error
        }
    }

    private func connected<T>(_ body: (RedisConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        let result = Result { try body(connection) }
        release(connection, after: result.failure)
        return try result.get()
    }

    /// A connection the caller keeps over several calls (a cluster's session) until `release`.
    /// A failed dial is counted in the metrics.
    func lease() throws -> RedisConnection {
        do {
            return try checkOut()
        } catch let error as RedisError {
            metrics.failed(error)
            throw error
        }
    }

    /// One call on a leased connection, timed and counted like a `withConnection`.
    func call<T>(on connection: RedisConnection, _ body: (RedisConnection) throws -> T) throws -> T {
        let started = ContinuousClock.now
        defer { metrics.latency.observe(started.duration(to: .now)) }
        do {
            return try body(connection)
        } catch let error as RedisError {
            metrics.failed(error)
            throw error
        }
    }

    /// Takes back a connection of `checkOut` or `lease`: parked for reuse, or dropped when it broke
    /// (`error` is what the last call threw, if anything).
    func release(_ connection: RedisConnection, after error: (any Error)?) {
        if let error = error as? RedisError, error.breaksConnection || connection.isBroken {
            drop(connection, reason: connection.isBroken ? connection.lastBreak ?? error.kind : error.kind)
        } else if connection.isBroken {
            // A pipeline reply said the node cannot serve now; the caller throws it after we return.
            drop(connection, reason: connection.lastBreak ?? .connection)
        } else {
            checkIn(connection)  // a server error reply or the caller's own error leaves the connection usable
        }
    }

    /// Connections currently idle in the pool (for tests and metrics).
    public var idleCount: Int { idle.withLock { $0.count } }

    /// The server connections go to now: the endpoint itself, or the primary its sentinels named last
    /// (nil until one is known).
    public var currentServer: RedisEndpoint? { sentinels == nil ? endpoint : sentinels?.knownPrimary }

    /// A connection of the caller's own, outside the pool, to the server pooled connections go to now (the
    /// primary the sentinels name, for a `redis-sentinel://` endpoint): for a subscription, which holds its
    /// connection. When it breaks, dial again.
    public func dedicatedConnection(commandTimeout: Double) throws -> RedisConnection {
        try dial(try sentinels?.primary() ?? endpoint, commandTimeout: commandTimeout)
    }

    private func checkOut() throws -> RedisConnection {
        let target = try sentinels?.primary() ?? endpoint
        while let reused = idle.withLock({ $0.popLast() }) {
            if reused.connection.endpoint == target { return reused.connection }
            // Idle on a former primary: dropped.
        }
        return try dial(target, commandTimeout: commandTimeout)
    }

    private func dial(_ target: RedisEndpoint, commandTimeout: Double) throws -> RedisConnection {
        do {
            return try RedisConnection(endpoint: target, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
        } catch {
            sentinels?.forget(target)  // unreachable or refusing: ask the sentinels again next time
            throw error
        }
    }

    private func checkIn(_ connection: RedisConnection) {
        guard !connection.isBroken else { return }
        let parked = IdleConnection(connection: connection)
        idle.withLock { connections in
            if connections.count < maxIdle { connections.append(parked) }
        }
    }

    /// Forgets a broken connection; the sentinels are asked again whatever broke it (a primary cut off by
    /// the network only times out).
    private func drop(_ connection: RedisConnection, reason: RedisError.Kind) {
        sentinels?.forget(connection.endpoint)
        guard reason.suspectsServer else { return }
        idle.withLock { connections in connections.removeAll { $0.connection.endpoint == connection.endpoint } }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A connection parked in the pool. `@unchecked Sendable` because `RedisConnection` is not thread-safe, but a
/// parked one belongs to no thread: it only moves in and out of the mutex-guarded list, and `checkOut` hands it
/// to exactly one caller, which uses it on its own thread until `checkIn`.
private struct IdleConnection: @unchecked Sendable {
    let connection: RedisConnection
}
