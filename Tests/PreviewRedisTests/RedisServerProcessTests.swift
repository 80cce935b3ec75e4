import Foundation
import PreviewRedis
import PreviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("RedisServerProcess")
struct RedisServerProcessTests {
    /// A short, unique, not yet existing directory under /tmp; removed by the caller.
    private func scratchDirectory() -> String {
        "/tmp/sp-rt-" + UUID().uuidString.prefix(8).lowercased()
    }

    private func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0
    }

    @Test("start runs redis-server on the unix socket and stop leaves no process or socket behind")
    func stopLeavesNothing() throws {
        let directory = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try RedisServerProcess.start(directory: directory, appendOnly: false)
        let pid = server.pid
        #expect(server.socketPath == directory + "/redis.sock")
        #expect(isAlive(pid))
        let comm = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        #expect(comm.hasPrefix("redis-server"))
        #expect(try RedisConnection(endpoint: server.endpoint).command(["PING"]) == .status("PONG"))

        server.stop()
        #expect(server.hasExited)
        #expect(!isAlive(pid))
        #expect(!FileManager.default.fileExists(atPath: server.socketPath))
        server.stop()  // idempotent
    }

    @Test("with appendonly the data survives a stop and a restart on the same directory")
    func appendOnlyPersists() throws {
        let directory = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try RedisServerProcess.start(directory: directory)
        _ = try RedisConnection(endpoint: first.endpoint).command(["SET", "durable", "yes"])
        first.stop()

        let second = try RedisServerProcess.start(directory: directory)
        defer { second.stop() }
        #expect(try RedisConnection(endpoint: second.endpoint).command(["GET", "durable"]).string == "yes")
    }

    @Test("a missing executable throws an error naming it")
    func missingExecutable() {
        let directory = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: RedisServerError.self) {
            try RedisServerProcess.start(directory: directory, executable: "redis-server-that-does-not-exist")
        }
        #expect(error?.message.contains("redis-server-that-does-not-exist") == true)
    }

    @Test("a server that exits at once throws with the tail of its log")
    func exitsAtOnce() {
        let directory = scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: RedisServerError.self) {
            try RedisServerProcess.start(directory: directory, extraArguments: ["--no-such-directive", "1"])
        }
        #expect(error?.message.contains("exited") == true)
        #expect(error?.message.contains("no-such-directive") == true, "\(error?.message ?? "")")
    }

    @Test("a directory too long for a unix socket path is refused with a clear error")
    func socketPathTooLong() {
        let directory = "/tmp/" + String(repeating: "d", count: 100)
        let error = #expect(throws: RedisServerError.self) { try RedisServerProcess.start(directory: directory) }
        #expect(error?.message.contains("limit is 107") == true)
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("the server runs with an empty signal mask, so SIGTERM stops it")
    func signalMaskIsEmpty() throws {
        let redis = try RedisServerFixture()
        let status = try String(contentsOfFile: "/proc/\(redis.server.pid)/status", encoding: .utf8)
        let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        #expect(blocked?.hasSuffix("0000000000000000") == true, "\(blocked ?? "")")
        redis.stop()
    }
}

@Suite("AUTH")
struct RedisAuthTests {
    let redis: RedisServerFixture

    init() throws {
        redis = try RedisServerFixture(extraArguments: ["--requirepass", "pw"])
    }

    @Test("the right password logs in on connect")
    func rightPassword() throws {
        #expect(redis.endpoint.password == "pw")
        #expect(try redis.connection().command(["PING"]) == .status("PONG"))
        let url = try RedisEndpoint.parse("unix://\(redis.socketPath)?password=pw&db=2")
        #expect(try RedisConnection(endpoint: url).command(["SET", "a", "b"]) == .status("OK"))
    }

    @Test("a wrong password throws a server error that names the endpoint but not the password")
    func wrongPassword() throws {
        var endpoint = redis.endpoint
        endpoint.password = "nope"
        let error = #expect(throws: RedisError.self) { try RedisConnection(endpoint: endpoint) }
        #expect(error?.kind == .server)
        #expect(error?.message.contains("AUTH refused") == true)
        #expect(error?.message.contains("WRONGPASS") == true)
        #expect(error?.message.contains(redis.socketPath) == true)
        #expect(error?.message.contains("nope") == false)
    }

    @Test("without a password commands are refused with NOAUTH")
    func noPassword() throws {
        var endpoint = redis.endpoint
        endpoint.password = nil
        let connection = try RedisConnection(endpoint: endpoint)
        let error = #expect(throws: RedisError.self) { try connection.command(["GET", "a"]) }
        #expect(error?.message.hasPrefix("NOAUTH") == true)
    }
}
