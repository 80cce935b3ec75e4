/// The Redis a process is told to use: one server (`redis://`, `unix://`, or the primary of a
/// `redis-sentinel://` group) or a cluster (`redis-cluster://`).
public enum RedisTarget: Sendable, Equatable, CustomStringConvertible {
    case server(RedisEndpoint)
    case cluster(RedisClusterEndpoint)

    /// Parses a `redis-cluster://` URL as a cluster, anything else as `RedisEndpoint.parse` does.
    public static func parse(_ url: String) throws -> RedisTarget {
        if url.lowercased().hasPrefix("redis-cluster://") { return .cluster(try RedisClusterEndpoint.parse(url)) }
        return .server(try RedisEndpoint.parse(url))
    }

    public var description: String {
        switch self {
        case .server(let endpoint): endpoint.description
        case .cluster(let cluster): cluster.description
        }
    }

    /// A client with up to `maxIdle` idle connections (per node, for a cluster). Dials nothing yet.
    public func client(maxIdle: Int, commandTimeout: Double = 2) -> any RedisClient {
        switch self {
        case .server(let endpoint):
            RedisServerClient(pool: RedisPool(endpoint: endpoint, maxIdle: maxIdle, commandTimeout: commandTimeout))
        case .cluster(let cluster):
            RedisCluster(endpoint: cluster, maxIdle: maxIdle, commandTimeout: commandTimeout)
        }
    }
}
