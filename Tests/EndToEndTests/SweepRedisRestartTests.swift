import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The embedded Redis (append-only file on) killed while `sweep` works.
@Suite("Sweep: Redis restart")
struct SweepRedisRestartTests {
    static let streams: ClosedRange<Int64> = 1...40
    static let abandonedPerStream = 20

    /// What one uploader seeded.
    struct Seeded: Sendable {
        var live: [Int64: SweepSeeder.Upload] = [:]
        var garbage = Set<String>()
        var uploaded: [String: [UInt8]] = [:]
    }

    @Test(
        "Redis killed mid-run: sweep and serve exit 69; after a restart the next run completes and nothing committed is lost"
    )
    func redisKilledDuringARun() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-rr")
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort
        let arguments = [
            "--sweep-interval", "0", "--grace", "100", "--upload-url-ttl", "5", "--commit-window", "5",
            "--preview-ttl", "86400", "--max-pending-uploads", "100",
        ]
        let first = try ServiceProcess(arguments: arguments, dataDirectory: directory, testClock: true)
        // Four uploaders at once, each on its share of the streams.
        let parts = try inParallel(4) { part in
            let seeder = try SweepSeeder(first)
            var seeded = Seeded()
            for id in Self.streams where Int(id) % 4 == part {
                seeded.live[id] = try seeder.publish(streamId: id, seed: Int(id))
                for upload in 0..<Self.abandonedPerStream {
                    seeded.garbage.formUnion(try seeder.upload(streamId: id, seed: Int(id) * 100 + upload).keys)
                }
            }
            seeded.uploaded = seeder.uploaded
            return seeded
        }
        let live = parts.reduce(into: [Int64: SweepSeeder.Upload]()) { $0.merge($1.live) { $1 } }
        let garbage = Set(parts.flatMap(\.garbage))
        let uploaded = parts.reduce(into: [String: [UInt8]]()) { $0.merge($1.uploaded) { $1 } }
        let liveKeys = Set(live.values.flatMap(\.keys))
        try first.shiftClock(by: 200)

        let run = try first.startSweep()
        let started = eventually(within: 30) {
            run.exitStatus != nil || ((try? storedKeys(directory).count) ?? Int.max) < liveKeys.count + garbage.count
        }
        let redis = first.redisServerPIDs()
        for pid in redis { _ = kill(pid, SIGKILL) }  // ignored result: a gone process is the goal
        try #require(started && !redis.isEmpty, "the sweep began deleting and the embedded redis-server was found")
        #expect(run.wait(timeout: 30) == 69, "sweep: \(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("Redis failed during the run"), "\(run.stderr)")
        #expect(first.waitForExit(timeout: 15) == 69, "serve exits 69 when its embedded Redis dies")

        let second = try ServiceProcess(
            arguments: arguments, dataDirectory: directory, environment: first.runEnvironment)
        let probe = second.redisProbe()
        let index = try SweepIndex.read(probe, streams: Self.streams)
        #expect(index.live == liveKeys)
        #expect(try storedKeys(directory).isSubset(of: index.all), "every object on disk is still accounted for")
        let unfinished = index.garbage.union(index.deleting)
        #expect(!unfinished.isEmpty, "Redis died before the run was over")
        // The killed run's lease (60 s) and claims (120 s) survive in the append-only file; a later
        // cron run finds them expired. The test expires them at once.
        try probe.perform(["DEL", RedisKeys().sweepLease])
        try first.shiftClock(by: 200 + 121)
        let next = try first.startRun(["sweep", "--data-dir", directory])  // on the shared test clock
        #expect(next.wait(timeout: 60) == 0, "\(next.stdout) \(next.stderr)")
        let summary = try #require(SweepSummary.only(in: next.stdout), "\(next.stdout)")
        #expect(summary.failed == 0)
        #expect(summary.objects == unfinished.count, "the next run finishes what the killed one left")
        let after = try SweepIndex.read(probe, streams: Self.streams)
        #expect(after.garbage.isEmpty && after.deleting.isEmpty)

        #expect(try storedKeys(directory) == liveKeys, "all garbage gone, every live object kept")
        let api = try APIClient(second)
        let items = try api.feedItems(query: "limit=100")
        #expect(Set(items.map(\.streamId)) == Set(Self.streams), "every preview committed before the kill")
        for item in items {
            let upload = try #require(live[item.streamId])
            #expect(try api.send("GET", item.movieUrl).body == uploaded[upload.movieKey])
            #expect(try api.send("GET", item.thumbnailUrl).body == uploaded[upload.thumbnailKey])
        }
    }
}
