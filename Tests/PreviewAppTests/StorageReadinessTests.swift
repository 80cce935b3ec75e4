import Foundation
import PreviewHTTPServer
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `/readyz` and a remote object store: the real server and router, a real redis-server, and an
/// S3 endpoint on loopback that answers, refuses, or stalls on command.
@Suite struct StorageReadinessTests {
    enum Bucket: Int { case answers = 0, refuses = 1, stalls = 2 }

    @Test func readyzFollowsTheBucketsAnswersAndAStalledBucketWithoutWaitingOnIt() throws {
        let redis = try RedisServerFixture()
        defer { redis.stop() }
        let mode = Atomic<Int>(Bucket.answers.rawValue)
        let bucket = try RawHTTPServer { request in
            let head = request.requestLine.hasPrefix("HEAD ")
            _ = eventually(within: 60) { mode.load(ordering: .acquiring) != Bucket.stalls.rawValue }
            if mode.load(ordering: .acquiring) == Bucket.refuses.rawValue {
                return .respond(RawHTTPServer.response(403, "Forbidden", omitBody: head))
            }
            return .respond(RawHTTPServer.response(404, "Not Found", omitBody: head))
        }
        defer { bucket.stop() }
        // Declared after bucket.stop's defer, so it runs first: a stalled probe is let go.
        defer { mode.store(Bucket.answers.rawValue, ordering: .releasing) }

        var context = SlowStorageIsolationTests.context(redis: redis, bucketURL: bucket.url)
        let readiness = StorageReadiness(
            storage: context.storage, interval: .milliseconds(50), slowAfter: .milliseconds(500))
        context.storageReadiness = readiness
        readiness.start()
        defer { readiness.stop() }
        let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: Router(context: context))
        let port = try server.start()
        defer { server.stop() }
        let ready = { try SlowStorageIsolationTests.call(port, "GET", "/readyz") }

        #expect(eventually(within: 10) { (try? ready().status) == 200 }, "ready once the first probe is answered")
        #expect(bucket.requests.contains { $0.requestLine.contains(StorageReadiness.probeKey) })

        mode.store(Bucket.refuses.rawValue, ordering: .releasing)
        #expect(eventually(within: 10) { (try? ready().status) == 503 }, "a bucket that refuses the service")
        let refused = try ready()
        #expect(String(decoding: refused.body, as: UTF8.self).contains("object store unavailable"))
        #expect(refused.values("Retry-After") == ["1"])

        mode.store(Bucket.answers.rawValue, ordering: .releasing)
        #expect(eventually(within: 10) { (try? ready().status) == 200 }, "ready again once it answers")

        // The stalled probe holds its own thread; /readyz answers within its 5 s read timeout.
        mode.store(Bucket.stalls.rawValue, ordering: .releasing)
        #expect(eventually(within: 10) { (try? ready().status) == 503 }, "a bucket that does not answer")
        #expect(readiness.failure?.hasPrefix("no answer for") == true, "\(readiness.failure ?? "ready")")
        #expect(try SlowStorageIsolationTests.call(port, "GET", "/healthz").status == 200)

        mode.store(Bucket.answers.rawValue, ordering: .releasing)
        #expect(eventually(within: 10) { (try? ready().status) == 200 }, "ready again once the stall ends")
    }
}
