import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

/// `sweep --storage s3` when the bucket's deletes fail: garbage objects are seeded in moto
/// through `serve`, then deleted through a loopback server that fails every delete request.
@Suite("Sweep: storage failing")
struct SweepStorageFailureTests {
    /// A seeded bucket: three streams whose first previews are past their grace at clock +200.
    struct Seeded {
        let flow: S3Flow
        let seeder: SweepSeeder
        var live = Set<String>()
        var garbage = Set<String>()

        init() throws {
            let moto = try MotoServer.start()
            flow = try S3Flow(
                endpoint: moto.endpoint, bucketPrefix: "sweep-fail",
                extraArguments: ["--grace", "100", "--upload-url-ttl", "60", "--commit-window", "60"], testClock: true)
            let prefix = "\(flow.endpoint.url)/\(flow.bucket)/"
            seeder = try SweepSeeder(flow.service) { url in
                url.hasPrefix(prefix) ? String(url.dropFirst(prefix.count).prefix { $0 != "?" }) : nil
            }
            for id: Int64 in 1...3 {
                garbage.formUnion(try seeder.publish(streamId: id, seed: Int(id)).keys)
                live.formUnion(try seeder.publish(streamId: id, seed: Int(id) + 10).keys)
            }
            try flow.service.shiftClock(by: 200)
        }

        /// `sweep --storage s3` against `endpoint` (moto's by default), with serve's clock.
        func sweep(endpoint: String? = nil) throws -> BackgroundRun {
            let service = flow.service
            return try BackgroundRun(
                [
                    "sweep", "--data-dir", service.dataDirectory, "--storage", "s3", "--endpoint",
                    endpoint ?? flow.endpoint.url, "--bucket", flow.bucket, "--addressing", "path", "--region",
                    S3TestEndpoint.region,
                ], environment: service.runEnvironment.merging(S3TestEndpoint.credentialEnvironment) { $1 })
        }

        func bucketKeys() throws -> Set<String> { Set(try flow.endpoint.listKeys(bucket: flow.bucket)) }
    }

    @Test(
        "Deletes answered 500 or stalled past the timeout: exit 75, keys stay queued with backoff, a later healthy run deletes them"
    )
    func failedDeletesAreRetriedLater() throws {
        let seeded = try Seeded()
        try #require(try seeded.bucketKeys() == seeded.live.union(seeded.garbage))
        // The first request stalls past the client's 10 s timeout; every later one is a 500.
        let requests = Atomic(0)
        let failing = try RawHTTPServer { _ in
            if requests.add(1, ordering: .relaxed).newValue == 1 { return .stall(seconds: 12) }
            return .respond(
                RawHTTPServer.response(
                    500, "Internal Server Error", headers: [("Content-Type", "application/xml")],
                    body: Array("<Error><Code>InternalError</Code><Message>injected</Message></Error>".utf8)))
        }
        defer { failing.stop() }

        let failed = try seeded.sweep(endpoint: failing.url)
        #expect(failed.wait(timeout: 120) == 75, "\(failed.stdout) \(failed.stderr)")
        #expect(
            SweepSummary.only(in: failed.stdout) == SweepSummary(objects: 0, failed: seeded.garbage.count),
            "\(failed.stdout)")
        #expect(failed.stderr.contains("sweep_delete_failed"))
        let methods = failing.requests.map { $0.requestLine.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(!methods.isEmpty)
        #expect(
            methods.allSatisfy { $0.hasPrefix("DELETE /") || ($0.hasPrefix("POST /") && $0.contains("delete")) },
            "only deletes were sent: \(methods)")
        #expect(try seeded.bucketKeys() == seeded.live.union(seeded.garbage), "nothing was deleted")

        // Queued again, each with a later due time (backoff from the run's clock, +200).
        let probe = seeded.flow.service.redisProbe()
        let keys = RedisKeys()
        var queued = Set<String>()
        for id: Int64 in 1...3 {
            let entries = try probe.strings(["ZRANGE", keys.deleting(id), "0", "-1", "WITHSCORES"])
            for pair in stride(from: 0, to: entries.count - 1, by: 2) {
                queued.insert(entries[pair])
                let due = try #require(Int64(entries[pair + 1]))
                #expect(due > unixNow() + 200, "\(entries[pair]) is due at \(due): not before a backoff")
            }
        }
        #expect(queued == seeded.garbage, "the failed keys stay in the deleting sets")

        // Within the backoff a healthy run leaves them; past it, it deletes them.
        let early = try seeded.sweep()
        #expect(early.wait(timeout: 60) == 0, "\(early.stdout) \(early.stderr)")
        #expect(SweepSummary.only(in: early.stdout) == SweepSummary(), "\(early.stdout)")
        try seeded.flow.service.shiftClock(by: 200 + 31)
        let healthy = try seeded.sweep()
        #expect(healthy.wait(timeout: 60) == 0, "\(healthy.stdout) \(healthy.stderr)")
        #expect(SweepSummary.only(in: healthy.stdout) == SweepSummary(objects: seeded.garbage.count))
        #expect(try seeded.bucketKeys() == seeded.live, "the garbage is gone from the bucket, the live objects stay")
        let index = try SweepIndex.read(probe, streams: 1...3)
        #expect(index.deleting.isEmpty && index.garbage.isEmpty)
    }

    @Test("A store that refuses connections: sweep exits 69 and the keys stay queued")
    func unreachableStore() throws {
        let seeded = try Seeded()
        let port = try freeLoopbackPort()
        let run = try seeded.sweep(endpoint: "http://127.0.0.1:\(port)")
        #expect(run.wait(timeout: 120) == 69, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("unreachable"), "\(run.stderr)")
        let index = try SweepIndex.read(seeded.flow.service.redisProbe(), streams: 1...3)
        #expect(index.deleting == seeded.garbage)
        #expect(try seeded.bucketKeys() == seeded.live.union(seeded.garbage))
    }
}
