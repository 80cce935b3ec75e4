import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("serve's Redis replication options")
struct ServeRedisOptionsTests {
    func serveOptions(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options
    }

    @Test("the replica wait is off by default, set by flag or environment, the flag winning")
    func replicaWaitOptions() throws {
        let defaults = try serveOptions([])
        #expect(defaults.redisWaitReplicas == 0)
        #expect(defaults.redisWaitTimeoutMilliseconds == 1000)
        let environment = ["STREAMPREVIEW_REDIS_WAIT_REPLICAS": "2", "STREAMPREVIEW_REDIS_WAIT_TIMEOUT": "300"]
        let fromEnvironment = try serveOptions([], environment: environment)
        #expect(fromEnvironment.redisWaitReplicas == 2)
        #expect(fromEnvironment.redisWaitTimeoutMilliseconds == 300)
        let fromFlags = try serveOptions(
            ["--redis-wait-replicas", "1", "--redis-wait-timeout", "50"], environment: environment)
        #expect(fromFlags.redisWaitReplicas == 1)
        #expect(fromFlags.redisWaitTimeoutMilliseconds == 50)
    }

    @Test(
        "an out-of-range replica count or timeout is a usage error",
        arguments: [
            ["--redis-wait-replicas", "-1"], ["--redis-wait-replicas", "65"], ["--redis-wait-timeout", "0"],
            ["--redis-wait-timeout", "x"],
        ])
    func rejectsOutOfRange(_ arguments: [String]) {
        #expect(throws: UsageError.self) { try serveOptions(arguments) }
    }
}
