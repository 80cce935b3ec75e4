import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `streampreview sweep` as an operator runs it next to `serve`: expiry end to end, `--dry-run`,
/// and no serve to talk to.
@Suite("Sweep: lifecycle")
struct SweepLifecycleTests {
    @Test("A preview is in the feed, leaves it at expiry after sweep, and its objects are gone after the grace")
    func expiryThenGrace() throws {
        let service = try ServiceProcess(
            arguments: ["--sweep-interval", "0", "--preview-ttl", "60", "--grace", "30"], testClock: true)
        let seeder = try SweepSeeder(service)
        let upload = try seeder.publish(streamId: 7, seed: 7)
        #expect(try seeder.api.feedItems().map(\.streamId) == [7])

        try service.shiftClock(by: 61)
        let expiry = try service.sweep(["--grace", "30"])  // the same lifetimes as serve
        #expect(expiry.status == 0, "\(expiry.stdout) \(expiry.stderr)")
        #expect(SweepSummary.only(in: expiry.stdout) == SweepSummary(previews: 1, objects: 0), "\(expiry.stdout)")
        #expect(try seeder.api.feedItems().isEmpty, "an expired preview leaves the feed")
        for key in upload.keys {
            #expect(try storedObject(service, key: key) == seeder.uploaded[key], "kept during the grace: \(key)")
        }

        try service.shiftClock(by: 61 + 29)
        let early = try service.sweep(["--grace", "30"])
        #expect(early.status == 0)
        #expect(SweepSummary.only(in: early.stdout) == SweepSummary(), "nothing is due before the grace ends")
        #expect(try storedKeys(service.dataDirectory) == Set(upload.keys))

        try service.shiftClock(by: 61 + 31)
        let grace = try service.sweep(["--grace", "30"])
        #expect(grace.status == 0, "\(grace.stdout) \(grace.stderr)")
        #expect(SweepSummary.only(in: grace.stdout) == SweepSummary(objects: 2), "\(grace.stdout)")
        #expect(try storedKeys(service.dataDirectory).isEmpty, "the objects are gone after the grace")
    }

    @Test("sweep --dry-run lists exactly what is due and deletes nothing; the real run then deletes it")
    func dryRun() throws {
        let service = try ServiceProcess(
            arguments: [
                "--sweep-interval", "0", "--preview-ttl", "600", "--grace", "100", "--upload-url-ttl", "10",
                "--commit-window", "10",
            ], testClock: true)
        let seeder = try SweepSeeder(service)
        var due = Set<String>()
        for id: Int64 in 1...3 {
            due.formUnion(try seeder.publish(streamId: id, seed: Int(id)).keys)
            try seeder.publish(streamId: id, seed: Int(id) + 10)
        }
        due.formUnion(try seeder.upload(streamId: 4, seed: 4).keys)
        try seeder.publish(streamId: 5, seed: 5)
        try service.shiftClock(by: 700)  // stream 1-3's first previews past the grace; every preview expired
        let before = try storedKeys(service.dataDirectory)

        let dry = try service.sweep(["--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        let lines = dry.stdout.split(separator: "\n").map(String.init)
        let deletes = Set(lines.filter { $0.hasPrefix("would delete ") }.map { String($0.dropFirst(13)) })
        let expires = Set(lines.filter { $0.hasPrefix("would expire stream ") }.map { String($0.dropFirst(20)) })
        #expect(deletes == due, "would delete: \(deletes.sorted())")
        #expect(expires == ["1", "2", "3", "5"])
        #expect(SweepSummary.only(in: dry.stdout) == SweepSummary(previews: 4, objects: due.count))
        #expect(try storedKeys(service.dataDirectory) == before, "a dry run deletes nothing")
        #expect(try seeder.api.feedItems(query: "limit=100").isEmpty, "expired previews are not served meanwhile")

        let real = try service.sweep()
        #expect(real.status == 0, "\(real.stdout) \(real.stderr)")
        #expect(SweepSummary.only(in: real.stdout) == SweepSummary(previews: 4, objects: due.count))
        #expect(try storedKeys(service.dataDirectory) == before.subtracting(due))
    }

    @Test("sweep with no serve on the data dir exits 69 and says to start serve or pass --redis")
    func noServe() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-noserve")
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort
        let result = try ServiceProcess.runBinary(["sweep", "--data-dir", directory])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(
            result.stderr.contains("no streampreview serve is running on --data-dir \(directory)"), "\(result.stderr)")
        #expect(result.stderr.contains("--redis"))
        #expect(result.stdout.isEmpty)
    }
}
