import Foundation
import PreviewRedis
import PreviewTestSupport
import Testing

@Suite("Redis replies that mean another node or a later try")
struct RedisFailoverReplyTests {
    @Test(
        "an error reply whose code says the node cannot serve now is unavailable, any other is a server error",
        arguments: [
            ("READONLY You can't write against a read only replica.", RedisError.Kind.unavailable),
            ("READONLY You can't write against a read only replica. script: 2dc6, on @user_script:1.", .unavailable),
            ("LOADING Redis is loading the dataset in memory", .unavailable),
            ("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", .unavailable),
            ("TRYAGAIN Multiple keys request during rehashing of slot", .unavailable),
            ("CLUSTERDOWN The cluster is down", .unavailable),
            ("ERR unknown command", .server),
            ("WRONGTYPE Operation against a key holding the wrong kind of value", .server),
            ("NOSCRIPT No matching script.", .server),
            ("READONLYX not a code we know", .server),
        ])
    func classifiesReplies(_ message: String, _ kind: RedisError.Kind) {
        #expect(RedisError.reply(message).kind == kind)
        #expect(RedisError.reply(message).message == message)
    }
}

/// A Redis demoted to a replica (`REPLICAOF` a port nothing listens on), as a former primary is after a failover.
@Suite("RedisPool with a demoted primary")
struct RedisDemotedPrimaryTests {
    let redis: RedisServerFixture

    init() throws {
        redis = try RedisServerFixture()
    }

    private func demote(staleReads: Bool = true) throws {
        let admin = try redis.connection()
        _ = try admin.command(["CONFIG", "SET", "replica-serve-stale-data", staleReads ? "yes" : "no"])
        let port = try SentinelGroupFixture.freeLoopbackPorts(count: 1)[0]
        _ = try admin.command(["REPLICAOF", "127.0.0.1", String(port)])
    }

    @Test("a READONLY reply to a command drops its connection and the idle ones, and throws unavailable")
    func readonlyCommandDropsConnections() throws {
        let pool = redis.pool()
        try fillIdle(pool, count: 3)
        try demote()
        let error = #expect(throws: RedisError.self) { try pool.withConnection { try $0.command(["SET", "k", "v"]) } }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.hasPrefix("READONLY") == true)
        #expect(pool.idleCount == 0, "connections to a demoted primary are not reused")
    }

    @Test("a READONLY reply inside a pipeline comes back inline and still drops the connection")
    func readonlyInPipelineDropsConnection() throws {
        let pool = redis.pool()
        try fillIdle(pool, count: 2)
        try demote()
        let replies = try pool.withConnection { try $0.pipeline([["GET", "k"], ["SET", "k", "v"]]) }
        let message: String? = if case .error(let text) = replies[1] { text } else { nil }
        #expect(message.map { RedisError.reply($0).kind } == .unavailable, "SET on a replica: \(replies[1])")
        #expect(pool.idleCount == 0)
    }

    @Test("a READONLY reply from a script (EVALSHA) is unavailable and drops the connection")
    func readonlyScriptDropsConnection() throws {
        let pool = redis.pool()
        try fillIdle(pool, count: 1)
        try demote()
        let script = RedisScript(name: "write", source: "return redis.call('SET', KEYS[1], ARGV[1])")
        let error = #expect(throws: RedisError.self) {
            try pool.withConnection { try $0.eval(script, keys: ["k"], args: ["v"]) }
        }
        #expect(error?.kind == .unavailable)
        #expect(pool.idleCount == 0)
    }

    @Test("a MASTERDOWN reply to a read is unavailable and drops the connection")
    func masterdownDropsConnection() throws {
        let pool = redis.pool()
        try fillIdle(pool, count: 1)
        try demote(staleReads: false)
        let error = #expect(throws: RedisError.self) { try pool.withConnection { try $0.command(["GET", "k"]) } }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.hasPrefix("MASTERDOWN") == true)
        #expect(pool.idleCount == 0)
    }

    @Test("once the node is a primary again the pool's next call dials it and succeeds")
    func recoversWhenPrimaryAgain() throws {
        let pool = redis.pool()
        try demote()
        #expect(throws: RedisError.self) { try pool.withConnection { try $0.command(["SET", "k", "v"]) } }
        _ = try redis.connection().command(["REPLICAOF", "NO", "ONE"])
        #expect(try pool.withConnection { try $0.command(["SET", "k", "v"]) } == .status("OK"))
        #expect(pool.idleCount == 1)
    }

    /// Parks `count` connections in the pool.
    private func fillIdle(_ pool: RedisPool, count: Int) throws {
        func hold(_ depth: Int) throws {
            guard depth > 0 else { return }
            _ = try pool.withConnection { connection in
                _ = try connection.command(["PING"])
                try hold(depth - 1)
            }
        }
        try hold(count)
        try #require(pool.idleCount == count)
    }
}
