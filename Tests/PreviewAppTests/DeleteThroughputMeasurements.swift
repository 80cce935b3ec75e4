import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Keys deleted per second by `delete(keys:concurrency:)`, printed, never asserted (a shared CI box
/// is too noisy for timing assertions). Runs only with STREAMPREVIEW_MEASURE_DELETES=1:
/// `STREAMPREVIEW_MEASURE_DELETES=1 swift test --skip-build --filter DeleteThroughputMeasurements`.
/// The local store's files go under /tmp, or under STREAMPREVIEW_MEASURE_DIR when set (e.g.
/// /dev/shm, to take the disk out of the figure).
@Suite(
    .serialized, .enabled(if: ProcessInfo.processInfo.environment["STREAMPREVIEW_MEASURE_DELETES"] == "1"))
struct DeleteThroughputMeasurements {
    static func seconds(_ body: () -> [String: StorageError]) -> (seconds: Double, failed: Int) {
        let started = ContinuousClock.now
        let failed = body().count
        let elapsed = ContinuousClock.now - started
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, failed)
    }

    static func report(_ store: String, keys: Int, concurrency: Int, _ run: (seconds: Double, failed: Int)) {
        print(
            "delete throughput: \(store), \(keys) keys, concurrency \(concurrency): "
                + String(format: "%.2f s, %.0f keys/s", run.seconds, Double(keys) / run.seconds))
    }

    @Test(arguments: [1, 8]) func localStore(concurrency: Int) throws {
        let directory =
            try ProcessInfo.processInfo.environment["STREAMPREVIEW_MEASURE_DIR"].map {
                "\($0)/sp-local-bench-\(UUID())"
            } ?? TestPaths.makeTemporaryDirectory(prefix: "sp-local-bench")
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp folder
        let store = try LocalObjectStore(
            root: directory + "/objects", publicBaseURL: nil, secret: "s", grid: ExpiryGrid(), crypto: OpenSSLCrypto())
        let keys = (0..<10_000).map { "previews/s\($0 % 100)/u\($0 / 2)/\($0 % 2 == 0 ? "movie.mp4" : "thumb.jpg")" }
        for key in keys { try LocalSeed.object(store, key: key, bytes: Array(repeating: 7, count: 1024)) }
        let run = Self.seconds { store.delete(keys: keys, concurrency: concurrency) }
        #expect(run.failed == 0)
        Self.report("local store under \(directory)", keys: keys.count, concurrency: concurrency, run)
    }

    @Test(arguments: [1, 8]) func motoS3(concurrency: Int) throws {
        let moto = try MotoServer.start()
        let bucket = S3TestEndpoint.uniqueBucket("sp-moto-bench")
        try moto.endpoint.createBucket(bucket)
        let keys = (0..<5_000).map { "previews/s\($0 % 100)/u\($0)/movie.mp4" }
        let seeding = ContinuousClock.now
        try S3Seed.put(keys, bucket: bucket, endpoint: moto.endpoint)
        let storage = S3Fixture.storage(endpoint: moto.endpoint.url, bucket: bucket)
        print("delete throughput: seeded \(keys.count) keys in moto in \(ContinuousClock.now - seeding)")
        let run = Self.seconds { storage.delete(keys: keys, concurrency: concurrency) }
        #expect(run.failed == 0)
        #expect(try moto.endpoint.listKeys(bucket: bucket).isEmpty)
        Self.report("moto S3 (DeleteObjects)", keys: keys.count, concurrency: concurrency, run)
    }
}
