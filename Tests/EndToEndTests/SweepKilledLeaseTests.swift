import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `streampreview sweep` killed with SIGKILL part way through, on the real clock of the lease:
/// the lease it held ends within 10 s (a heartbeat renews it, nothing else), and the next
/// holder takes over the streams and objects it had claimed at once.
@Suite("Sweep: a killed sweeper's lease")
struct SweepKilledLeaseTests {
    static let streams: ClosedRange<Int64> = 1...30
    static let grace: Int64 = 10_000

    /// A serve with garbage due: each stream's first preview (replaced) and an upload never
    /// committed, four objects a stream.
    struct Seeded {
        let service: ServiceProcess
        var garbage = Set<String>()
        var live = Set<String>()

        init() throws {
            service = try ServiceProcess(
                arguments: [
                    "--sweep-interval", "0", "--grace", String(SweepKilledLeaseTests.grace), "--upload-url-ttl", "5",
                    "--commit-window", "5", "--preview-ttl", "86400",
                ], testClock: true)
            let seeder = try SweepSeeder(service)
            for id in SweepKilledLeaseTests.streams {
                garbage.formUnion(try seeder.publish(streamId: id, seed: Int(id) * 3).keys)
                live.formUnion(try seeder.publish(streamId: id, seed: Int(id) * 3 + 1).keys)
                garbage.formUnion(try seeder.upload(streamId: id, seed: Int(id) * 3 + 2).keys)
            }
            try service.shiftClock(by: SweepKilledLeaseTests.grace + 100)
            try #require(try storedKeys(service.dataDirectory) == live.union(garbage))
        }

        func garbageStored() throws -> Set<String> { try storedKeys(service.dataDirectory).intersection(garbage) }

        /// Garbage the index still accounts for: what the next runs will delete (or delete again,
        /// when the killed run removed the file but not its entry).
        func garbageIndexed() throws -> Set<String> {
            let index = try SweepIndex.read(service.redisProbe(), streams: SweepKilledLeaseTests.streams)
            return index.garbage.union(index.deleting)
        }

        /// Starts a sweep (one stream a batch, one delete at a time) and kills it with SIGKILL once
        /// it has deleted a few objects; returns when it was killed and the lease's remaining
        /// milliseconds read right after.
        func killPartway() throws -> (killed: ContinuousClock.Instant, leaseMilliseconds: Int64) {
            let before = try garbageStored().count
            let run = try service.startSweep(["--batch-streams", "1", "--concurrency", "1"])
            _ = eventually(within: 60) {
                run.exitStatus != nil || before - ((try? garbageStored().count) ?? before) >= 3
            }
            try #require(run.exitStatus == nil, "the run was still working when killed: \(run.stdout) \(run.stderr)")
            run.kill()
            let killed = ContinuousClock.now
            let lease = try service.redisProbe().integer(["PTTL", RedisKeys().sweepLease])
            try #require(try !garbageStored().isEmpty, "garbage is left for the next run")
            return (killed, lease)
        }
    }

    @Test("SIGKILL, then sweep again until it gets the lease: within 12 s, and that run deletes every garbage object")
    func aKilledSweeperBlocksTheNextForAtMostTenSeconds() throws {
        let seeded = try Seeded()
        let (killed, lease) = try seeded.killPartway()
        #expect((1...10_000).contains(lease), "the killed run's lease ends within 10 s: PTTL \(lease) ms")
        let outstanding = try seeded.garbageIndexed()

        var held: [ProcessResult] = []
        var acquired: (run: ProcessResult, at: ContinuousClock.Instant)?
        while acquired == nil, ContinuousClock.now < killed + .seconds(60) {
            let run = try seeded.service.sweep()
            if run.stdout.contains("stop=lease_held") {
                held.append(run)
            } else {
                acquired = (run, ContinuousClock.now)
            }
        }
        let (run, at) = try #require(acquired, "a run got the lease within 60 s of the kill")
        #expect(at - killed <= .seconds(12), "the run that got the lease ended \(at - killed) after the kill")
        for blocked in held {
            #expect(blocked.status == 0, "\(blocked.stdout) \(blocked.stderr)")
            #expect(blocked.stdout.contains(" lease_ends_in="), "says when the lease ends: \(blocked.stdout)")
            #expect(SweepSummary.only(in: blocked.stdout) == SweepSummary(), "\(blocked.stdout)")
        }
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains(" stop=drained"), "\(run.stdout)")
        #expect(SweepSummary.only(in: run.stdout) == SweepSummary(objects: outstanding.count), "\(run.stdout)")
        let left = try seeded.garbageStored()
        #expect(left.isEmpty, "garbage left: \(left.count)")
        #expect(try storedKeys(seeded.service.dataDirectory) == seeded.live)
    }

    @Test("SIGKILL, the lease ends, then two runs at once: their objects= add up to the garbage, and all of it is gone")
    func twoRunsAfterAKillShareTheWork() throws {
        let seeded = try Seeded()
        let (killed, _) = try seeded.killPartway()
        let probe = seeded.service.redisProbe()
        #expect(
            eventually(within: 30) { (try? probe.integer(["EXISTS", RedisKeys().sweepLease])) == 0 },
            "the killed run's lease ends")
        #expect(
            ContinuousClock.now - killed <= .seconds(12), "lease gone \(ContinuousClock.now - killed) after the kill")
        let outstanding = try seeded.garbageIndexed()

        let runs = try (0..<2).map { _ in try seeded.service.startSweep() }
        for run in runs { #expect(run.wait(timeout: 60) == 0, "\(run.stdout) \(run.stderr)") }
        let summaries = runs.compactMap { SweepSummary.only(in: $0.stdout) }
        #expect(summaries.count == 2, "each run printed its summary: \(runs.map(\.stdout))")
        #expect(
            summaries.map(\.objects).reduce(0, +) == outstanding.count,
            "objects deleted by the two runs: \(runs.map(\.stdout)), outstanding \(outstanding.count)")
        let left = try seeded.garbageStored()
        #expect(left.isEmpty, "garbage left: \(left.count)")
        #expect(try storedKeys(seeded.service.dataDirectory) == seeded.live)
    }
}
