import Foundation
import PreviewRedis
import PreviewTestSupport
import Testing

@Suite("RedisPool")
struct RedisPoolTests {
    let redis: RedisServerFixture

    init() throws {
        redis = try RedisServerFixture()
    }

    @Test("a connection is reused by the next caller")
    func reusesConnections() throws {
        let pool = redis.pool()
        let first = try pool.withConnection { try $0.command(["CLIENT", "ID"]).int }
        let second = try pool.withConnection { try $0.command(["CLIENT", "ID"]).int }
        #expect(first == second)
        #expect(pool.idleCount == 1)
    }

    @Test("concurrent callers each get their own connection and at most maxIdle are kept")
    func concurrentCallers() throws {
        let pool = redis.pool(maxIdle: 2)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let value = try? pool.withConnection { connection -> String? in
                _ = try connection.command(["SET", "c\(index)", "\(index)"])
                _ = try connection.command(["CLIENT", "PAUSE", "1", "WRITE"])  // a small overlap
                return try connection.command(["GET", "c\(index)"]).string
            }
            #expect(value == "\(index)")
        }
        #expect(pool.idleCount <= 2)
    }

    @Test("a server error reply keeps the connection in the pool")
    func serverErrorKeepsConnection() throws {
        let pool = redis.pool()
        _ = try pool.withConnection { try $0.command(["SET", "s", "x"]) }
        let error = #expect(throws: RedisError.self) { try pool.withConnection { try $0.command(["INCR", "s"]) } }
        #expect(error?.kind == .server)
        #expect(pool.idleCount == 1)
    }

    @Test("after Redis is killed the next call throws a connection error, and calls work again once it is back")
    func recoversAfterRestart() throws {
        let pool = redis.pool()
        #expect(try pool.withConnection { try $0.command(["PING"]) } == .status("PONG"))
        #expect(pool.idleCount == 1)

        redis.killServer()
        let lost = #expect(throws: RedisError.self) { try pool.withConnection { try $0.command(["PING"]) } }
        #expect(lost?.kind == .connection)
        #expect(pool.idleCount == 0)
        let down = #expect(throws: RedisError.self) { try pool.withConnection { try $0.command(["PING"]) } }
        #expect(down?.kind == .connection)

        try redis.restartServer()
        #expect(try pool.withConnection { try $0.command(["PING"]) } == .status("PONG"))
        #expect(try pool.withConnection { try $0.command(["SET", "back", "1"]) } == .status("OK"))
    }
}
