import PreviewRedis
import Testing

@Suite("Redis URL parsing")
struct RedisEndpointTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let url: String
        let expected: RedisEndpoint
        var testDescription: String { url }
    }

    static let valid: [Case] = [
        Case(url: "redis://localhost", expected: RedisEndpoint(address: .tcp(host: "localhost", port: 6379))),
        Case(url: "redis://127.0.0.1:6380", expected: RedisEndpoint(address: .tcp(host: "127.0.0.1", port: 6380))),
        Case(
            url: "redis://cache.internal:7000/4",
            expected: RedisEndpoint(address: .tcp(host: "cache.internal", port: 7000), database: 4)),
        Case(url: "redis://h/", expected: RedisEndpoint(address: .tcp(host: "h", port: 6379))),
        Case(
            url: "redis://:s3cret@h:1/2",
            expected: RedisEndpoint(address: .tcp(host: "h", port: 1), database: 2, password: "s3cret")),
        Case(
            url: "redis://app:pw@h",
            expected: RedisEndpoint(address: .tcp(host: "h", port: 6379), username: "app", password: "pw")),
        Case(
            url: "redis://:p%40ss%2Fw@h",
            expected: RedisEndpoint(address: .tcp(host: "h", port: 6379), password: "p@ss/w")),
        Case(url: "redis://:a@b@h", expected: RedisEndpoint(address: .tcp(host: "h", port: 6379), password: "a@b")),
        Case(url: "redis://[::1]:6390/1", expected: RedisEndpoint(address: .tcp(host: "::1", port: 6390), database: 1)),
        Case(url: "REDIS://H", expected: RedisEndpoint(address: .tcp(host: "H", port: 6379))),
        Case(url: "unix:///run/redis.sock", expected: RedisEndpoint(address: .unix(path: "/run/redis.sock"))),
        Case(url: "unix:///tmp/r.sock?db=3", expected: RedisEndpoint(address: .unix(path: "/tmp/r.sock"), database: 3)),
        Case(
            url: "unix:///tmp/r.sock?db=1&password=x%26y",
            expected: RedisEndpoint(address: .unix(path: "/tmp/r.sock"), database: 1, password: "x&y")),
        Case(
            url: "unix:///tmp/r.sock?username=u&password=p",
            expected: RedisEndpoint(address: .unix(path: "/tmp/r.sock"), username: "u", password: "p")),
        Case(
            url: "redis-sentinel://10.0.0.1:26380,10.0.0.2,[::1]:5000#mymaster",
            expected: RedisEndpoint(
                address: .sentinel(
                    nodes: [
                        .init(host: "10.0.0.1", port: 26380), .init(host: "10.0.0.2", port: 26379),
                        .init(host: "::1", port: 5000),
                    ], master: "mymaster"))),
        Case(
            url: "redis-sentinel://s3cret@s1:1,s2:2/3#cache%20one",
            expected: RedisEndpoint(
                address: .sentinel(
                    nodes: [.init(host: "s1", port: 1), .init(host: "s2", port: 2)], master: "cache one"),
                database: 3, password: "s3cret")),
        Case(
            url: "REDIS-SENTINEL://app:p#w@s#m",
            expected: RedisEndpoint(
                address: .sentinel(nodes: [.init(host: "s", port: 26379)], master: "m"), username: "app",
                password: "p#w")),
    ]

    @Test("a valid URL parses into its endpoint", arguments: valid)
    func parsesValid(_ testCase: Case) throws {
        #expect(try RedisEndpoint.parse(testCase.url) == testCase.expected)
    }

    static let invalid: [(url: String, reason: String)] = [
        ("", "redis://"),
        ("http://localhost", "redis://"),
        ("rediss://h", "TLS"),
        ("redis://", "missing host"),
        ("redis://:6379", "missing host"),
        ("redis://h:0", "port"),
        ("redis://h:65536", "port"),
        ("redis://h:abc", "port"),
        ("redis://h/x", "database"),
        ("redis://h/-1", "database"),
        ("redis://h?db=1", "query"),
        ("redis://user@h", "password"),
        ("redis://:%zz@h", "percent"),
        ("redis://[::1", "'['"),
        ("unix://", "absolute"),
        ("unix://relative.sock", "absolute"),
        ("unix:///tmp/r.sock?db=two", "db"),
        ("unix:///tmp/r.sock?timeout=1", "unknown query parameter 'timeout'"),
        ("unix:///tmp/r.sock?username=u", "without password"),
        ("redis-sentinel://s1:26379", "master name is missing"),
        ("redis-sentinel://s1:26379#", "master name after '#' is empty"),
        ("redis-sentinel://s1,,s2#m", "missing host"),
        ("redis-sentinel://s1:0#m", "port"),
        ("redis-sentinel://s1/x#m", "database"),
        ("redis-sentinel://s1?db=1#m", "query"),
    ]

    @Test("an invalid URL throws invalidURL saying what is wrong", arguments: invalid)
    func rejectsInvalid(_ url: String, _ reason: String) {
        let error = #expect(throws: RedisError.self) { try RedisEndpoint.parse(url) }
        #expect(error?.kind == .invalidURL)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "") should mention \(reason)")
    }

    @Test("error messages and descriptions never show the password")
    func hidesPassword() throws {
        let error = #expect(throws: RedisError.self) { try RedisEndpoint.parse("redis://:hunter2@h:99999") }
        #expect(error?.message.contains("hunter2") == false)
        let unixError = #expect(throws: RedisError.self) { try RedisEndpoint.parse("unix:///s?password=hunter2&db=x") }
        #expect(unixError?.message.contains("hunter2") == false)
        #expect(try !RedisEndpoint.parse("redis://u:hunter2@h/1").description.contains("hunter2"))
        #expect(try !RedisEndpoint.parse("unix:///s?password=hunter2").description.contains("hunter2"))
        #expect(try !RedisEndpoint.parse("redis-sentinel://hunter2@s#m").description.contains("hunter2"))
        let sentinelError = #expect(throws: RedisError.self) { try RedisEndpoint.parse("redis-sentinel://hunter2@s") }
        #expect(sentinelError?.message.contains("hunter2") == false)
    }
}
