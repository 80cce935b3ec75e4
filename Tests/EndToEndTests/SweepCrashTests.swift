import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `streampreview sweep` killed with SIGKILL at random points of a large run, then run once to
/// the end: nothing live is lost and nothing collectable is left behind.
@Suite("Sweep: crashes")
struct SweepCrashTests {
    /// Lifetimes long enough that only the clock shifts of the test make things due.
    static let grace: Int64 = 20_000
    static let streams: ClosedRange<Int64> = 1...300

    /// What one uploader seeded.
    struct Seeded: Sendable {
        var garbage = Set<String>()
        var live: [Int64: [String]] = [:]
        var uploaded: [String: [UInt8]] = [:]
    }

    @Test("50 sweeps killed at random points, then one clean run: all garbage gone, live and in-grace objects intact")
    func killedSweepsLeakNothing() throws {
        let started = Date()
        let service = try ServiceProcess(
            arguments: [
                "--sweep-interval", "0", "--grace", String(Self.grace), "--upload-url-ttl", "5", "--commit-window", "5",
                "--preview-ttl", "86400",
            ], testClock: true)
        // At clock 0: every stream replaces its first preview; every 5th ends; every 3rd also has an
        // upload that is never committed. Four uploaders at once, each on its share of the streams.
        let parts = try inParallel(4) { part in
            let seeder = try SweepSeeder(service)
            var seeded = Seeded()
            for id in Self.streams where Int(id) % 4 == part {
                seeded.garbage.formUnion(try seeder.publish(streamId: id, seed: Int(id) * 3).keys)
                seeded.live[id] = try seeder.publish(streamId: id, seed: Int(id) * 3 + 1).keys
                if id % 5 == 0 {
                    try seeder.end(streamId: id)
                    seeded.garbage.formUnion(seeded.live[id] ?? [])
                    seeded.live[id] = nil
                }
                if id % 3 == 0 { seeded.garbage.formUnion(try seeder.upload(streamId: id, seed: Int(id) * 3 + 2).keys) }
            }
            seeded.uploaded = seeder.uploaded
            return seeded
        }
        let garbage = Set(parts.flatMap(\.garbage))
        var live = parts.reduce(into: [Int64: [String]]()) { $0.merge($1.live) { $1 } }
        var uploaded = parts.reduce(into: [String: [UInt8]]()) { $0.merge($1.uploaded) { $1 } }
        var inGrace = Set<String>()
        // Past the grace and the commit deadlines, every 5th stream (+1) replaces its preview again:
        // the replaced one is in its grace, not due.
        try service.shiftClock(by: Self.grace + 100)
        let seeder = try SweepSeeder(service)
        for id in Self.streams where id % 5 == 1 {
            inGrace.formUnion(live[id] ?? [])
            live[id] = try seeder.publish(streamId: id, seed: Int(id) * 3 + 2).keys
        }
        uploaded.merge(seeder.uploaded) { $1 }
        let kept = inGrace.union(live.values.joined())
        let stored = try storedKeys(service.dataDirectory)
        try #require(stored == kept.union(garbage), "the store holds what was uploaded")

        let seeded = Date()
        let probe = service.redisProbe()
        var random = SeededGenerator(seed: 0x5EED_0009)
        var interrupted = 0
        var partway = 0
        for _ in 0..<50 {
            let before = try storedKeys(service.dataDirectory).count
            // One stream a batch, one delete at a time: a run is hundreds of steps long, so the
            // kills land between and inside them while garbage is left.
            let run = try service.startSweep(["--batch-streams", "1", "--concurrency", "1"])
            // Killed at a random moment from start-up (lease, claims) to part way through the deletes:
            // after a random delay, or once a random number of objects is gone, whichever comes first.
            let deadline = Date().addingTimeInterval(Double.random(in: 0.005...0.12, using: &random))
            let target = Int.random(in: 1...6, using: &random)
            while run.exitStatus == nil, Date() < deadline,
                before - ((try? storedKeys(service.dataDirectory).count) ?? before) < target
            {
                usleep(500)
            }
            if run.exitStatus == nil { interrupted += 1 }
            run.kill()
            let after = try storedKeys(service.dataDirectory).count
            if after < before && after > kept.count { partway += 1 }
            // A killed run's lease ends 10 s later (the test ends it at once); the next holder
            // takes over the streams and objects it had claimed without waiting for the claims.
            try probe.perform(["DEL", RedisKeys().sweepLease])
        }
        let leftAfterKills = try storedKeys(service.dataDirectory).intersection(garbage).count
        print(
            "sweep crash: garbage=\(garbage.count) kept=\(kept.count) interrupted=\(interrupted) partway=\(partway) "
                + "left_after_kills=\(leftAfterKills) seed_seconds=\(Int(seeded.timeIntervalSince(started))) "
                + "kills_seconds=\(Int(Date().timeIntervalSince(seeded)))")
        #expect(interrupted >= 5, "kills hit running sweeps (\(interrupted) of 50)")
        #expect(partway >= 5, "kills came part way through the deletes (\(partway) of 50)")

        let clean = try service.sweep()
        #expect(clean.status == 0, "clean run: \(clean.stdout) \(clean.stderr)")
        #expect(SweepSummary.only(in: clean.stdout)?.failed == 0, "\(clean.stdout)")

        let remaining = try storedKeys(service.dataDirectory)
        #expect(remaining.intersection(garbage).isEmpty, "garbage left: \(remaining.intersection(garbage).count)")
        #expect(kept.subtracting(remaining).isEmpty, "lost: \(kept.subtracting(remaining).sorted().prefix(5))")
        #expect(remaining == kept, "unexpected objects: \(remaining.subtracting(kept).sorted().prefix(5))")
        for key in kept.sorted() {
            #expect(try storedObject(service, key: key) == uploaded[key], "\(key) is not what was uploaded")
        }
        let index = try SweepIndex.read(probe, streams: Self.streams)
        #expect(index.live == Set(live.values.joined()))
        #expect(index.garbage == inGrace, "only the objects in their grace stay queued")
        #expect(index.deleting.isEmpty)
        #expect(index.all == remaining, "the objects on disk are exactly those the index accounts for")
    }
}
