import Foundation
import PreviewRedis
import PreviewTestSupport
import Testing

@Suite("RedisConnection against a real redis-server")
struct RedisConnectionTests {
    let redis: RedisServerFixture
    let connection: RedisConnection

    init() throws {
        redis = try RedisServerFixture()
        connection = try redis.connection()
    }

    @Test("binary values with NUL and invalid UTF-8 round-trip byte for byte")
    func binaryRoundTrip() throws {
        let key: [UInt8] = [0x6b, 0x00, 0xff]
        let value: [UInt8] = [0x00, 0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28, 0x0d, 0x0a]
        #expect(try connection.command(bytes: [Array("SET".utf8), key, value]) == .status("OK"))
        let reply = try connection.command(bytes: [Array("GET".utf8), key])
        #expect(reply == .bulk(value))
        #expect(reply.bytes == value)
        #expect(reply.string == nil)
        #expect(try connection.command(bytes: [Array("SET".utf8), Array("empty".utf8), []]) == .status("OK"))
        #expect(try connection.command(["GET", "empty"]) == .bulk([]))
    }

    @Test("string arguments go out with their UTF-8 byte lengths, empty ones included, in pipelines too")
    func stringArgumentLengths() throws {
        let replies = try connection.pipeline([
            ["SET", "empty", ""], ["SET", "accent", "é\r\n✓"], ["STRLEN", "empty"], ["STRLEN", "accent"],
            ["GET", "accent"],
        ])
        #expect(replies == [.status("OK"), .status("OK"), .integer(0), .integer(7), .bulk(Array("é\r\n✓".utf8))])
    }

    @Test("integer, array, null and status replies map to their RedisValue cases")
    func replyKinds() throws {
        #expect(try connection.command(["INCR", "counter"]) == .integer(1))
        #expect(try connection.command(["INCRBY", "counter", "41"]).int == 42)
        #expect(try connection.command(["GET", "counter"]).int == 42)
        #expect(try connection.command(["GET", "missing"]).isNull)
        #expect(try connection.command(["PING"]) == .status("PONG"))
        #expect(try connection.command(["PING"]).string == "PONG")
        #expect(try connection.command(["RPUSH", "list", "a", "b"]) == .integer(2))
        #expect(
            try connection.command(["LRANGE", "list", "0", "-1"])
                == .array([.bulk(Array("a".utf8)), .bulk(Array("b".utf8))]))
        #expect(try connection.command(["LRANGE", "missing", "0", "-1"]) == .array([]))
        let nested = try connection.command(["EVAL", "return {1, {'x', false}}", "0"])
        #expect(nested == .array([.integer(1), .array([.bulk(Array("x".utf8)), .null])]))
    }

    @Test("an error reply throws a server error and leaves the connection usable")
    func errorReplyThrows() throws {
        _ = try connection.command(["SET", "text", "abc"])
        let error = #expect(throws: RedisError.self) { try connection.command(["INCR", "text"]) }
        #expect(error?.kind == .server)
        #expect(error?.message.hasPrefix("ERR value is not an integer") == true)
        let wrongType = #expect(throws: RedisError.self) { try connection.command(["LPUSH", "text", "x"]) }
        #expect(wrongType?.message.hasPrefix("WRONGTYPE") == true)
        #expect(!connection.isBroken)
        #expect(try connection.command(["GET", "text"]).string == "abc")
    }

    @Test("an empty command throws without touching the connection")
    func emptyCommand() throws {
        #expect(throws: RedisError.self) { try connection.command([]) }
        #expect(try connection.command(["PING"]) == .status("PONG"))
    }

    @Test("a pipeline returns one reply per command, in order, with errors inline")
    func pipelineInOrder() throws {
        let replies = try connection.pipeline([
            ["SET", "p", "1"],
            ["INCR", "p"],
            ["LPUSH", "p", "x"],
            ["GET", "p"],
            ["MULTI"],
            ["INCR", "p"],
            ["HSET", "p", "f", "v"],
            ["EXEC"],
        ])
        #expect(replies.count == 8)
        #expect(replies[0] == .status("OK"))
        #expect(replies[1] == .integer(2))
        guard case .error(let message) = replies[2] else {
            Issue.record("expected an inline error, got \(replies[2])")
            return
        }
        #expect(message.hasPrefix("WRONGTYPE"))
        #expect(replies[3].string == "2")
        #expect(replies[5] == .status("QUEUED"))
        let exec = try #require(replies[7].array)
        #expect(exec.first == .integer(3))
        guard case .error = exec.last else {
            Issue.record("expected an error inside EXEC, got \(replies[7])")
            return
        }
        #expect(try connection.pipeline([]) == [])
    }

    @Test("SELECT puts a connection in its endpoint's database")
    func selectsDatabase() throws {
        var endpoint = redis.endpoint
        endpoint.database = 3
        let db3 = try RedisConnection(endpoint: endpoint)
        _ = try db3.command(["SET", "where", "three"])
        #expect(try db3.command(["GET", "where"]).string == "three")
        #expect(try connection.command(["GET", "where"]).isNull)
    }

    @Test("eval runs a script by EVALSHA, loads it once, and reloads it after SCRIPT FLUSH")
    func evalShaWithFallback() throws {
        let script = RedisScript(name: "echo-key-arg", source: "return {KEYS[1], ARGV[1], #KEYS}")
        let expected = RedisValue.array([.bulk(Array("k".utf8)), .bulk(Array("v".utf8)), .integer(1)])
        #expect(try connection.eval(script, keys: ["k"], args: ["v"]) == expected)
        #expect(try connection.eval(script, keys: ["k"], args: ["v"]) == expected)
        #expect(try scriptLoads() == 1)
        #expect(try commandCalls("evalsha") == 2)
        #expect(try commandCalls("eval") == 0)

        _ = try redis.connection().command(["SCRIPT", "FLUSH"])
        #expect(try connection.eval(script, keys: ["k"], args: ["v"]) == expected)
        #expect(try scriptLoads() == 2)
        #expect(try commandCalls("evalsha") == 4)  // the NOSCRIPT attempt and the retry
    }

    @Test("a script's own error reply is thrown as a server error")
    func evalErrorThrows() throws {
        let script = RedisScript(name: "fails", source: "return redis.error_reply('CONFLICT already published')")
        let error = #expect(throws: RedisError.self) { try connection.eval(script, keys: [], args: []) }
        #expect(error?.kind == .server)
        #expect(error?.message.hasPrefix("CONFLICT") == true)
    }

    @Test("a command on a paused server times out after commandTimeout, and the next call re-dials")
    func commandTimeout() throws {
        let slow = try redis.connection(commandTimeout: 0.5)
        // WRITE, not ALL: under ALL the CLIENT UNPAUSE below would itself wait out the pause.
        _ = try connection.command(["CLIENT", "PAUSE", "3000", "WRITE"])
        defer { _ = try? connection.command(["CLIENT", "UNPAUSE"]) }
        // A timeout, not the answer that would come once the 3 s pause ends.
        let error = #expect(throws: RedisError.self) { try slow.command(["SET", "k", "v"]) }
        #expect(error?.kind == .timeout)
        #expect(slow.isBroken)

        _ = try connection.command(["CLIENT", "UNPAUSE"])
        #expect(try slow.command(["PING"]) == .status("PONG"))
        #expect(!slow.isBroken)
    }

    @Test("connecting to a socket nobody listens on throws a connection error naming it")
    func connectFailure() throws {
        let endpoint = RedisEndpoint(address: .unix(path: redis.directory + "/nobody.sock"))
        let error = #expect(throws: RedisError.self) { try RedisConnection(endpoint: endpoint) }
        #expect(error?.kind == .connection)
        #expect(error?.message.contains("nobody.sock") == true)
    }

    private func info(_ section: String) throws -> String {
        try #require(connection.command(["INFO", section]).string)
    }

    private func commandCalls(_ name: String) throws -> Int {
        try stat("cmdstat_\(name):calls=")
    }

    private func scriptLoads() throws -> Int {
        try stat("cmdstat_script|load:calls=")
    }

    private func stat(_ prefix: String) throws -> Int {
        let text = try info("commandstats")
        guard let line = text.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix(prefix) }) else {
            return 0
        }
        return Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) ?? -1
    }
}
