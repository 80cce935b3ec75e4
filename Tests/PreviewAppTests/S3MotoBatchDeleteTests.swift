import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `delete(keys:concurrency:)` against moto_server: DeleteObjects requests reach the right objects,
/// split at 1,000 keys (moto checks no signature; the LocalStack suite proves the signing).
@Suite(.serialized) struct S3MotoBatchDeleteTests {
    let moto: MotoServer
    let bucket = S3TestEndpoint.uniqueBucket("sp-moto-del")
    let storage: RemoteObjectStorage

    init() throws {
        moto = try MotoServer.start()
        try moto.endpoint.createBucket(bucket)
        storage = S3Fixture.storage(endpoint: moto.endpoint.url, bucket: bucket)
    }

    @Test func deletingMostOfTwoThousandFiveHundredObjectsLeavesExactlyTheRest() throws {
        let keys = (0..<2_500).map { "batch/s\($0 % 10)/u\($0)/movie.mp4" }
        try S3Seed.put(keys, bucket: bucket, endpoint: moto.endpoint)
        let doomed = Array(keys[..<2_400])
        let neverWere = (0..<50).map { "batch/never/\($0).mp4" }

        let failed = storage.delete(keys: doomed + neverWere, concurrency: 4)

        #expect(failed.isEmpty, "\(failed.values.prefix(3))")
        #expect(
            S3Fixture.byteKeys(try moto.endpoint.listKeys(bucket: bucket)) == S3Fixture.byteKeys(Array(keys[2_400...])))
    }

    @Test func awkwardKeysAreDeletedInOneBatch() throws {
        let keys = S3Fixture.awkwardKeys + ["awk/amp&lt;x>\"'.mp4", "awk/cr\r.mp4"]
        for (index, key) in keys.enumerated() {
            try S3Fixture.put(storage, key: key, bytes: TestMedia.mp4(size: 400 + index))
        }
        let failed = storage.delete(keys: keys, concurrency: 2)
        #expect(failed.isEmpty, "\(failed)")
        #expect(try moto.endpoint.listKeys(bucket: bucket).isEmpty)
    }
}

/// Seeds a bucket quickly: unsigned PUTs from a few threads (setup only).
enum S3Seed {
    static func put(_ keys: [String], bucket: String, endpoint: S3TestEndpoint, threads: Int = 8) throws {
        let failures = BoundedWork.map(count: keys.count, concurrency: threads) { index -> String? in
            do {
                try endpoint.putObject(
                    bucket: bucket, encodedKey: ObjectPath.encode(keys[index]), bytes: [UInt8(index % 256)],
                    contentType: "video/mp4")
                return nil
            } catch {
                return "\(keys[index]): \(error)"
            }
        }.compactMap { $0 }
        try #require(failures.isEmpty, "\(failures.count) seeding PUTs failed, first: \(failures.first ?? "")")
    }
}
