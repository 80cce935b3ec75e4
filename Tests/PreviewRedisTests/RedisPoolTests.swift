import Foundation
import PreviewRedis
import PreviewTestSupport
import Synchronization
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

    @Test("callers holding connections at the same time each have their own, and at most maxIdle are kept")
    func concurrentCallers() throws {
        let pool = redis.pool(maxIdle: 2)
        let callers = 6
        let inside = Mutex(0)
        let ids = Mutex<[Int64]>([])
        let values = Mutex<[Int: String]>([:])
        // One connection is already idle: it must go to one caller only.
        #expect(try pool.withConnection { try $0.command(["PING"]) } == .status("PONG"))
        let done = DispatchGroup()
        // One thread per caller (not concurrentPerform, which runs only as many at once as there are cores).
        for index in 0..<callers {
            done.enter()
            Thread {
                defer { done.leave() }
                let value = try? pool.withConnection { connection -> String? in
                    let id = try connection.command(["CLIENT", "ID"]).int
                    _ = try connection.command(["SET", "c\(index)", "\(index)"])
                    // Hold the connection until every caller holds one (or 10 s pass), so all overlap.
                    inside.withLock { $0 += 1 }
                    let deadline = Date().addingTimeInterval(10)
                    while inside.withLock({ $0 }) < callers, Date() < deadline { usleep(1_000) }
                    if let id { ids.withLock { $0.append(id) } }
                    return try connection.command(["GET", "c\(index)"]).string
                }
                values.withLock { $0[index] = value ?? nil }
            }.start()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(values.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<callers).map { ($0, "\($0)") }))
        let seen = ids.withLock { $0 }
        #expect(seen.count == callers)
        #expect(Set(seen).count == callers, "connection IDs \(seen): two callers shared a connection")
        #expect(pool.idleCount == 2)
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
