/// The calls the store makes on Redis, on one connection or routed across a cluster's nodes.
/// Used by one thread at a time, inside `RedisClient.withConnection`. The semantics are those of
/// `RedisConnection`: error replies of `command` and `eval` are thrown, those of pipelines come
/// back inline, and the commands of a pipeline take effect in their order.
///
/// `WAIT` (as `command`) covers the writes made through these commands so far: on one server,
/// those of the connection; on a cluster, those of every node written to in this
/// `withConnection`, each asked on the connection that wrote (the reply is the smallest count).
public protocol RedisCommands {
    func command(_ args: [String]) throws -> RedisValue
    func pipeline(_ commands: [[String]]) throws -> [RedisValue]
    func eval(_ script: RedisScript, keys: [String], args: [String]) throws -> RedisValue
    func eval(_ script: RedisScript, keys: [String], args: [String], after commands: [[String]]) throws -> RedisValue
    func evalPipeline(_ script: RedisScript, calls: [(keys: [String], args: [String])]) throws -> [RedisValue]
}

extension RedisConnection: RedisCommands {}

/// Where the store's Redis calls go: one server (`RedisServerClient`) or a cluster (`RedisCluster`).
public protocol RedisClient: Sendable {
    /// Runs `body` with commands the calling thread owns until `body` returns. Do not keep them afterwards.
    func withConnection<T>(_ body: (any RedisCommands) throws -> T) throws -> T
    /// Latency and failures of the calls (of every node, for a cluster).
    var metrics: RedisMetrics { get }
    /// Connections idle in the pool (of every node, for a cluster).
    var idleCount: Int { get }
    /// A connection of the caller's own, outside the pool, for a subscription (which holds its
    /// connection): to the server (the current primary with Sentinel), or to a node of the
    /// cluster (classic pub/sub reaches every node). When it breaks, ask again.
    func dedicatedConnection(commandTimeout: Double) throws -> RedisConnection
}

/// `RedisClient` of one server: each `withConnection` is one connection of the pool, which
/// follows the primary of a `redis-sentinel://` endpoint.
public struct RedisServerClient: RedisClient {
    public let pool: RedisPool

    public init(pool: RedisPool) {
        self.pool = pool
    }

    public func withConnection<T>(_ body: (any RedisCommands) throws -> T) throws -> T {
        try pool.withConnection { (connection: RedisConnection) in try body(connection) }
    }

    public var metrics: RedisMetrics { pool.metrics }

    public var idleCount: Int { pool.idleCount }

    public func dedicatedConnection(commandTimeout: Double) throws -> RedisConnection {
        try pool.dedicatedConnection(commandTimeout: commandTimeout)
    }
}
