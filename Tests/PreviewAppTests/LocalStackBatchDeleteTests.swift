import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// DeleteObjects against LocalStack's S3 with signature validation on (run by scripts/test-s3.sh;
/// fails when STREAMPREVIEW_TEST_LOCALSTACK is unset): the presigned `POST /<bucket>?delete` with
/// its signed `Content-MD5` is accepted and deletes exactly the keys it names.
@Suite(.serialized) struct LocalStackBatchDeleteTests {
    let endpoint: S3TestEndpoint
    let bucket = S3TestEndpoint.uniqueBucket("sp-ls-del")
    let storage: RemoteObjectStorage

    init() throws {
        endpoint = try LocalStackS3.endpoint()
        try endpoint.createBucket(bucket)
        storage = S3Fixture.storage(endpoint: endpoint.url, bucket: bucket)
    }

    @Test func aSignedBatchDeleteOfSeveralHundredKeysIsAcceptedAndDeletesExactlyThem() throws {
        let keys = (0..<300).map { "ls-batch/u\($0)/movie.mp4" } + S3Fixture.awkwardKeys
        try S3Seed.put(keys, bucket: bucket, endpoint: endpoint, threads: 4)
        let kept = (0..<5).map { "ls-batch/kept/\($0).mp4" }
        try S3Seed.put(kept, bucket: bucket, endpoint: endpoint, threads: 1)

        let failed = storage.delete(keys: keys + ["ls-batch/never.mp4"], concurrency: 4)

        #expect(failed.isEmpty, "\(failed.values.prefix(3))")
        #expect(S3Fixture.byteKeys(try endpoint.listKeys(bucket: bucket)) == S3Fixture.byteKeys(kept))
    }

    @Test func aBatchDeleteSignedWithAWrongSecretIsRefusedAndDeletesNothing() throws {
        try S3Seed.put(["ls-forged/a.mp4", "ls-forged/b.mp4"], bucket: bucket, endpoint: endpoint, threads: 1)
        let forged = S3Presigner(
            credentials: SigV4Credentials(accessKeyId: S3TestEndpoint.accessKeyId, secretAccessKey: "not-the-secret"),
            region: S3TestEndpoint.region, endpoint: endpoint.url, addressing: .path, crypto: OpenSSLCrypto())
        let wrong = S3Fixture.storage(endpoint: endpoint.url, bucket: bucket, signer: forged)

        let failed = wrong.delete(keys: ["ls-forged/a.mp4", "ls-forged/b.mp4"], concurrency: 2)

        #expect(Set(failed.keys) == ["ls-forged/a.mp4", "ls-forged/b.mp4"])
        #expect(failed.values.allSatisfy { $0.description.contains("403") && !$0.unreachable })
        #expect(try endpoint.listKeys(bucket: bucket).count == 2)
    }
}
