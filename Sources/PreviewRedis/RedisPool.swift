import Synchronization

/// Hands worker threads a connection each: idle connections are reused (at most `maxIdle` are kept), new ones
/// dialled on demand, so there are as many connections as threads using Redis at once.
///
/// A connection whose call failed with `.connection`, `.timeout` or `.protocolError` is dropped rather than
/// returned; after a `.connection` failure the idle ones are dropped too, since they point at the same server,
/// which has most likely gone away. The next call dials afresh, so the service recovers by itself when Redis is back.
/// The failing call itself is not retried: the command may or may not have run.
public final class RedisPool: Sendable {
    public let endpoint: RedisEndpoint
    private let maxIdle: Int
    private let connectTimeout: Double
    private let commandTimeout: Double
    private let idle = Mutex<[IdleConnection]>([])
    /// Latency and failures of every `withConnection` call.
    public let metrics = RedisMetrics()

    /// Dials nothing up front: the first `withConnection` connects.
    public init(endpoint: RedisEndpoint, maxIdle: Int = 16, connectTimeout: Double = 1, commandTimeout: Double = 2) {
        self.endpoint = endpoint
        self.maxIdle = max(0, maxIdle)
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
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
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch let error as RedisError where error.breaksConnection {
            if error.kind == .connection { idle.withLock { $0.removeAll() } }
            throw error
        } catch {
            checkIn(connection)  // a server error reply or the caller's own error leaves the connection usable
            throw error
        }
    }

    /// Connections currently idle in the pool (for tests and metrics).
    public var idleCount: Int { idle.withLock { $0.count } }

    private func checkOut() throws -> RedisConnection {
        if let reused = idle.withLock({ $0.popLast() }) { return reused.connection }
        return try RedisConnection(endpoint: endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
    }

    private func checkIn(_ connection: RedisConnection) {
        guard !connection.isBroken else { return }
        let parked = IdleConnection(connection: connection)
        idle.withLock { connections in
            if connections.count < maxIdle { connections.append(parked) }
        }
    }
}

/// A connection parked in the pool. `@unchecked Sendable` because `RedisConnection` is not thread-safe, but a
/// parked one belongs to no thread: it only moves in and out of the mutex-guarded list, and `checkOut` hands it
/// to exactly one caller, which uses it on its own thread until `checkIn`.
private struct IdleConnection: @unchecked Sendable {
    let connection: RedisConnection
}
