/// The calls the store makes on Redis, on one connection or routed across a cluster's nodes.
/// Used by one thread at a time, inside `RedisClient.withConnection`. The semantics are those of
/// `RedisConnection`: error replies of `command` and `eval` are thrown, those of pipelines come
/// back inline, and the commands of a pipeline take effect in their order.
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
}

/// `RedisClient` of one server: each `withConnection` is one connection of the pool.
public struct RedisServerClient: RedisClient {
    public let pool: RedisPool

    public init(pool: RedisPool) {
        self.pool = pool
    }

    public func withConnection<T>(_ body: (any RedisCommands) throws -> T) throws -> T {
        try pool.withConnection { (connection: RedisConnection) in try body(connection) }
    }
}
