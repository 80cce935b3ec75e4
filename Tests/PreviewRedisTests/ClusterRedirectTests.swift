import PreviewRedis
import Testing

@Suite("Redis Cluster redirects and URLs")
struct ClusterRedirectTests {
    @Test("MOVED names the slot and its new owner")
    func moved() {
        #expect(
            ClusterRedirect(error: "MOVED 3999 127.0.0.1:6381") == .moved(slot: 3999, host: "127.0.0.1", port: 6381))
    }

    @Test("ASK names the slot and the node importing it")
    func ask() {
        #expect(ClusterRedirect(error: "ASK 12182 10.0.0.2:7002") == .ask(slot: 12182, host: "10.0.0.2", port: 7002))
    }

    @Test("An IPv6 address and an empty host are read up to the last colon")
    func hosts() {
        #expect(ClusterRedirect(error: "MOVED 1 ::1:7000") == .moved(slot: 1, host: "::1", port: 7000))
        #expect(ClusterRedirect(error: "ASK 2 :7001") == .ask(slot: 2, host: "", port: 7001))
    }

    @Test("TRYAGAIN, with or without its explanation, asks for a retry")
    func tryAgain() {
        #expect(ClusterRedirect(error: "TRYAGAIN Multiple keys request during rehashing of slot") == .tryAgain)
        #expect(ClusterRedirect(error: "TRYAGAIN") == .tryAgain)
    }

    @Test(
        "Other errors and malformed redirects are not redirects",
        arguments: [
            "ERR unknown command", "MOVED 16384 h:1", "MOVED x h:1", "MOVED 1 h", "MOVED 1 h:0", "ASK 1",
            "MOVEDX 1 h:1",
            "CLUSTERDOWN The cluster is down", "NOSCRIPT No matching script",
        ])
    func notRedirects(message: String) {
        #expect(ClusterRedirect(error: message) == nil)
    }

    @Test("A redis-cluster URL lists its seeds, each with the shared credentials")
    func clusterURL() throws {
        let parsed = try RedisClusterEndpoint.parse("redis-cluster://:pw@127.0.0.1:7000,h2,[::1]:7002")
        #expect(
            parsed.seeds == [
                RedisEndpoint(address: .tcp(host: "127.0.0.1", port: 7000), password: "pw"),
                RedisEndpoint(address: .tcp(host: "h2", port: 6379), password: "pw"),
                RedisEndpoint(address: .tcp(host: "::1", port: 7002), password: "pw"),
            ])
        #expect(parsed.description == "redis-cluster://:***@127.0.0.1:7000,h2:6379,[::1]:7002")
        #expect(try RedisTarget.parse("REDIS-CLUSTER://a:1") == .cluster(parsed.withSeeds(["a:1"])))
        #expect(
            try RedisTarget.parse("redis://a:1/2")
                == .server(RedisEndpoint(address: .tcp(host: "a", port: 1), database: 2)))
    }

    @Test(
        "A redis-cluster URL with a database, a query or an empty host is refused",
        arguments: [
            "redis-cluster://h:1/2", "redis-cluster://h:1?x=1", "redis-cluster://h:1,,h:2", "redis-cluster://",
        ])
    func badClusterURLs(url: String) {
        #expect(throws: RedisError.self) { try RedisClusterEndpoint.parse(url) }
    }
}

extension RedisClusterEndpoint {
    fileprivate func withSeeds(_ hostPorts: [String]) -> RedisClusterEndpoint {
        RedisClusterEndpoint(
            seeds: hostPorts.map { text in
                let parts = text.split(separator: ":")
                return RedisEndpoint(address: .tcp(host: String(parts[0]), port: Int(parts[1]) ?? 0))
            })
    }
}
