import Foundation
import PreviewRedis
import PreviewTestSupport
import Testing

/// Real sentinels, a primary and a replica on loopback (`SentinelGroupFixture`).
@Suite("RedisPool on a redis-sentinel:// endpoint")
struct RedisSentinelPoolTests {
    @Test("the pool dials the primary the sentinels name, skipping one that is down, and follows a failover")
    func followsThePrimary() throws {
        let group = try SentinelGroupFixture(replicas: 1)
        group.kill(port: group.sentinelPorts[0])
        let pool = RedisPool(endpoint: try RedisEndpoint.parse(group.url), connectTimeout: 0.5, commandTimeout: 1)
        #expect(try pool.withConnection { try $0.command(["SET", "k", "before"]) } == .status("OK"))
        #expect(pool.currentServer?.address == .tcp(host: "127.0.0.1", port: group.dataPorts[0]))

        group.kill(port: group.dataPorts[0])
        let promoted = eventually(within: 30) {
            (try? pool.withConnection { try $0.command(["SET", "k", "after"]) }) == .status("OK")
        }
        #expect(promoted, "writes succeed on the promoted replica without a new pool")
        #expect(pool.currentServer?.address == .tcp(host: "127.0.0.1", port: group.dataPorts[1]))
        #expect(try pool.withConnection { try $0.command(["ROLE"]) }.array?.first?.string == "master")
    }

    @Test("with a password in the URL, sentinels that require it are asked again with it and the primary is found")
    func passwordProtectedSentinels() throws {
        let group = try SentinelGroupFixture(replicas: 1, password: "s3cret-pw")
        let pool = RedisPool(endpoint: try RedisEndpoint.parse(group.url), connectTimeout: 0.5, commandTimeout: 1)
        #expect(try pool.withConnection { try $0.command(["SET", "k", "v"]) } == .status("OK"))
        #expect(pool.currentServer?.address == .tcp(host: "127.0.0.1", port: group.dataPorts[0]))

        let withoutPassword = RedisPool(
            endpoint: try RedisEndpoint.parse(group.url.replacingOccurrences(of: "s3cret-pw@", with: "")))
        let refused = #expect(throws: RedisError.self) {
            try withoutPassword.withConnection { try $0.command(["PING"]) }
        }
        #expect(refused?.message.contains("NOAUTH") == true, "\(refused?.message ?? "")")
    }
}
