import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

/// `RedisCluster` against a real cluster: one primary owning every slot and its replica.
@Suite("Redis Cluster client on a primary and its replica", .serialized)
struct RedisClusterClientTests {
    let nodes: ClusterPairFixture
    let cluster: RedisCluster

    init() throws {
        nodes = try ClusterPairFixture()
        cluster = RedisCluster(endpoint: try RedisClusterEndpoint.parse(nodes.url), commandTimeout: 2)
    }

    @Test(
        "WAIT after a write is asked on the connection that wrote: 1 while the replica keeps up, 0 while it is stopped"
    )
    func waitGoesToTheConnectionThatWrote() throws {
        let confirmed = try cluster.withConnection { redis in
            _ = try redis.command(["SET", "{s:1}:k", "a"])
            return try redis.command(["WAIT", "1", "2000"]).int
        }
        #expect(confirmed == 1)
        // Every connection's writes so far are on the replica: only a write made after the pause is unconfirmed.
        try #require(nodes.replicaCaughtUp())

        nodes.pauseReplica()
        defer { nodes.resumeReplica() }
        let unconfirmed = try cluster.withConnection { redis in
            _ = try redis.command(["SET", "{s:1}:k", "b"])
            return try redis.command(["WAIT", "1", "200"]).int
        }
        // A WAIT on any other connection would answer 1 at once: it has no write of its own to wait for.
        #expect(unconfirmed == 0)
    }

    @Test("WAIT with nothing written in the call answers the count asked for, without waiting on a node")
    func waitWithoutWritesAnswersTheCountAsked() throws {
        nodes.pauseReplica()
        defer { nodes.resumeReplica() }
        let reply = try cluster.withConnection { redis in
            _ = try redis.command(["GET", "{s:2}:k"])
            return try redis.command(["WAIT", "1", "5000"]).int
        }
        #expect(reply == 1)
    }

    @Test("Calls on the cluster's nodes are counted in the cluster's one RedisMetrics")
    func nodesReportToOneMetrics() throws {
        let before = cluster.metrics.latency.count
        _ = try cluster.withConnection { redis in
            try redis.pipeline([["SET", "{s:3}:k", "a"], ["GET", "{v:x}:k"]])
        }
        #expect(cluster.metrics.latency.count > before)
        #expect(cluster.idleCount >= 1, "the session's connection went back to its node's pool")
    }

    @Test("A dedicated connection reaches a node of the cluster, outside the pools")
    func dedicatedConnectionReachesANode() throws {
        let connection = try cluster.dedicatedConnection(commandTimeout: 1)
        #expect(try connection.command(["PING"]).string == "PONG")
    }
}

@Suite("TRYAGAIN keeps its connection")
struct TryAgainConnectionTests {
    let redis: RedisServerFixture

    init() throws {
        redis = try RedisServerFixture()
    }

    @Test("a TRYAGAIN reply is unavailable but leaves the connection usable; READONLY breaks it")
    func tryAgainKeepsTheConnection() throws {
        let connection = try redis.connection()
        let tryAgain = try #require(throws: RedisError.self) {
            try connection.command(["EVAL", "return redis.error_reply('TRYAGAIN Multiple keys request')", "0"])
        }
        #expect(tryAgain.kind == .unavailable)
        #expect(!connection.isBroken)
        let replies = try connection.pipeline([
            ["EVAL", "return redis.error_reply('TRYAGAIN Multiple keys request')", "0"], ["PING"],
        ])
        #expect(replies[1].string == "PONG")
        #expect(!connection.isBroken)
        _ = try connection.pipeline([["EVAL", "return redis.error_reply('READONLY replica')", "0"]])
        #expect(connection.isBroken)
    }
}

/// The store's scripts on a slot being migrated away from its node (`CLUSTER SETSLOT ... MIGRATING`).
@Suite("Scripts on a migrating slot")
struct MigratingSlotScriptTests {
    @Test("an unlike that empties the likers set answers the new count while the stream's slot migrates")
    func unlikeEmptyingTheLikersAnswersWhileMigrating() throws {
        let nodes = try ClusterPairFixture(secondIsReplica: false)
        let keys = RedisKeys(prefix: "m")
        let admin = try nodes.connection(port: nodes.primaryPort)
        _ = try admin.command(["HSET", keys.preview(7), "expiresAt", "9999999999999"])
        _ = try admin.command(["SADD", keys.likers(7), "ann"])
        // Published with figures on: the stream's figures hash exists (every key the script declares does).
        _ = try admin.command(["HSET", keys.figures(7), "1.liveFrom", "0"])
        let slot = String(ClusterSlot.of(keys.preview(7)))
        let importer = try nodes.connection(port: nodes.replicaPort)
        _ = try importer.command(["CLUSTER", "SETSLOT", slot, "IMPORTING", try nodes.nodeID(port: nodes.primaryPort)])
        _ = try admin.command(["CLUSTER", "SETSLOT", slot, "MIGRATING", try nodes.nodeID(port: nodes.replicaPort)])

        let store = PreviewStore(client: RedisCluster(endpoint: try RedisClusterEndpoint.parse(nodes.url)), keys: keys)
        let unliked = try store.setLike(streamId: 7, subject: "ann", like: false, now: 0, ttl: 60)
        #expect(unliked?.count.likes == 0)
    }

    @Test("a seen mark of a stream without a watch URL is counted while the stream's slot migrates")
    func seenWithoutFiguresAnswersWhileMigrating() throws {
        let nodes = try ClusterPairFixture(secondIsReplica: false)
        let keys = RedisKeys(prefix: "m")
        let admin = try nodes.connection(port: nodes.primaryPort)
        _ = try admin.command(["HSET", keys.preview(7), "expiresAt", "9999999999999", "version", "3"])
        // Published with figures on: the hash holds the live version, its estimates exist; no watch URL.
        _ = try admin.command(["HSET", keys.figures(7), "3.liveFrom", "0"])
        _ = try admin.command(["PFADD", keys.figures(7, distinct: "impressions")])
        let slot = String(ClusterSlot.of(keys.preview(7)))
        let importer = try nodes.connection(port: nodes.replicaPort)
        _ = try importer.command(["CLUSTER", "SETSLOT", slot, "IMPORTING", try nodes.nodeID(port: nodes.primaryPort)])
        _ = try admin.command(["CLUSTER", "SETSLOT", slot, "MIGRATING", try nodes.nodeID(port: nodes.replicaPort)])

        let store = PreviewStore(client: RedisCluster(endpoint: try RedisClusterEndpoint.parse(nodes.url)), keys: keys)
        let counted = try store.count(.impression, streamId: 7, viewer: "sub:ann", now: 0)
        #expect(counted?.version == 3)
        #expect(counted?.watchURL == "")
        #expect(try admin.command(["HGET", keys.figures(7), "3.impressions"]).string == "1")
    }
}
