import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Several sweepers at once on one Redis: the loops of two `serve` processes and two `sweep` runs.
@Suite("Sweep: several sweepers")
struct SweepConcurrencyTests {
    static let streams: ClosedRange<Int64> = 1...60

    @Test("Two sweep runs and two serve loops at once delete every garbage object exactly once")
    func workIsDoneOnce() throws {
        let redis = try RedisServerFixture()
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-two")
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort
        let redisURL = "unix://" + redis.socketPath
        let arguments = [
            "--redis", redisURL, "--sweep-interval", "1", "--grace", "100", "--upload-url-ttl", "60",
            "--commit-window", "60", "--preview-ttl", "86400",
        ]
        let first = try ServiceProcess(arguments: arguments, dataDirectory: directory, testClock: true)
        let second = try ServiceProcess(
            arguments: arguments, dataDirectory: directory, environment: first.runEnvironment)
        let seeder = try SweepSeeder(first)
        var live = Set<String>()
        var garbage = Set<String>()
        for id in Self.streams {
            garbage.formUnion(try seeder.publish(streamId: id, seed: Int(id)).keys)
            live.formUnion(try seeder.publish(streamId: id, seed: Int(id) + 1000).keys)
            garbage.formUnion(try seeder.upload(streamId: id, seed: Int(id) + 2000).keys)
        }
        try #require(try storedKeys(directory) == live.union(garbage))

        try first.shiftClock(by: 200)
        let runs = try (0..<2).map { _ in try first.startRun(["sweep", "--data-dir", directory, "--redis", redisURL]) }
        for run in runs { #expect(run.wait(timeout: 60) == 0, "sweep: \(run.stdout) \(run.stderr)") }
        #expect(eventually(within: 30) { (try? storedKeys(directory)) == live }, "every garbage object is deleted")

        func summaries() -> [SweepSummary] {
            let logs = [first.stderrPath, second.stderrPath].map {
                (try? String(contentsOfFile: $0, encoding: .utf8)) ?? ""
            }
            return (runs.map(\.stdout) + logs).flatMap { SweepSummary.all(in: $0) }
        }
        // The deleting run logs its summary just after its last delete.
        _ = eventually(within: 10) { summaries().map(\.objects).reduce(0, +) >= garbage.count }
        let all = summaries()
        #expect(all.map(\.objects).reduce(0, +) == garbage.count, "objects deleted over all runs: \(all)")
        #expect(all.allSatisfy { $0.failed == 0 && $0.kept == 0 }, "\(all)")
        #expect(runs.allSatisfy { SweepSummary.only(in: $0.stdout) != nil }, "each sweep printed its summary")
        #expect(first.exitStatus == nil && second.exitStatus == nil, "both serves still run")
    }
}
