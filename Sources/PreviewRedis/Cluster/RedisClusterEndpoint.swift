import PreviewCore

/// A Redis Cluster to reach through seed nodes: `redis-cluster://[[user]:password@]host:port[,host:port...]`.
/// Every node is logged in to with the same credentials; a cluster has only database 0.
public struct RedisClusterEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// Nodes asked for the slot map (any of them will do; the others are tried in turn).
    public var seeds: [RedisEndpoint]

    public init(seeds: [RedisEndpoint]) {
        self.seeds = seeds
    }

    /// The seeds as a URL with the password replaced by `***`.
    public var description: String {
        guard let first = seeds.first else { return "redis-cluster://" }
        let credentials = first.password == nil ? "" : "\(first.username ?? ""):***@"
        return "redis-cluster://" + credentials + seeds.map(\.hostAndPort).joined(separator: ",")
    }

    /// Parses `redis-cluster://[[user]:password@]host[:port][,host[:port]...]`; ports default to 6379.
    public static func parse(_ url: String) throws -> RedisClusterEndpoint {
        let scheme = "redis-cluster://"
        guard url.lowercased().hasPrefix(scheme) else {
            throw RedisError(kind: .invalidURL, message: "expected a URL starting with \(scheme)")
        }
        let rest = url.dropFirst(scheme.count)
        var userinfo = ""
        var hosts = rest
        // The last '@' ends the credentials, as in redis:// URLs.
        if let at = rest.lastIndex(of: "@") {
            userinfo = String(rest[...at])
            hosts = rest[rest.index(after: at)...]
        }
        if hosts.contains("/") || hosts.contains("?") {
            throw RedisError(
                kind: .invalidURL, message: "a cluster URL takes no database or query (a cluster has only db 0)")
        }
        let seeds = try hosts.split(separator: ",", omittingEmptySubsequences: false).map { host in
            guard !host.isEmpty else {
                throw RedisError(kind: .invalidURL, message: "empty host in the node list of a redis-cluster:// URL")
            }
            return try RedisEndpoint.parse("redis://" + userinfo + host)
        }
        return RedisClusterEndpoint(seeds: seeds)
    }
}

extension RedisEndpoint {
    /// `host:port` of a TCP endpoint (IPv6 in brackets), the socket path of a unix one, the sentinels of a
    /// sentinel one (a cluster seed is always TCP).
    var hostAndPort: String {
        switch address {
        case .tcp(let host, let port): HostAndPort.format(host: host, port: port)
        case .unix(let path): path
        case .sentinel(let nodes, _): nodes.map(\.description).joined(separator: ",")
        }
    }
}
