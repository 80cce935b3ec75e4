import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// RemoteObjectStorage against LocalStack's S3 with signature validation on (run by scripts/test-s3.sh,
/// in a loopback-only network namespace; fails when STREAMPREVIEW_TEST_LOCALSTACK is unset).
///
/// Proves over the wire that the SigV4 query signatures of our own HEAD, ranged GET, DELETE and of the
/// upload PUT verify for awkward keys (what curl sends is what was signed), and that a wrong secret is
/// refused with the store's code in our error. Does not prove AWS itself agrees beyond what LocalStack
/// checks (it re-computes the SigV4 signature as AWS documents it).
@Suite(.serialized) struct LocalStackRemoteStorageTests {
    let endpoint: S3TestEndpoint
    let bucket = S3TestEndpoint.uniqueBucket("sp-ls")
    let storage: RemoteObjectStorage

    init() throws {
        endpoint = try LocalStackS3.endpoint()
        try endpoint.createBucket(bucket)
        storage = S3Fixture.storage(endpoint: endpoint.url, bucket: bucket)
    }

    @Test func signedRequestsForAwkwardKeysVerifyAndReachExactlyThoseKeys() throws {
        var contents: [[UInt8]] = []
        for (index, key) in S3Fixture.awkwardKeys.enumerated() {
            let bytes = TestMedia.mp4(size: 700 + index, seed: UInt8(index))
            contents.append(bytes)
            try S3Fixture.put(storage, key: key, bytes: bytes)
        }
        #expect(S3Fixture.byteKeys(try endpoint.listKeys(bucket: bucket)) == S3Fixture.byteKeys(S3Fixture.awkwardKeys))
        for (key, bytes) in zip(S3Fixture.awkwardKeys, contents) {
            let info = try #require(try storage.inspect(key: key, prefixLength: 16), "inspect \(key)")
            #expect(info.size == Int64(bytes.count) && info.contentType == "video/mp4", "\(key)")
            #expect(info.prefix == Array(bytes.prefix(16)), "\(key)")
            #expect(try storage.read(key: key, offset: 200, length: 64) == Array(bytes[200..<264]), "\(key)")
            try storage.delete(key: key)
            #expect(try storage.inspect(key: key, prefixLength: 16) == nil, "\(key) after delete")
        }
        #expect(try endpoint.listKeys(bucket: bucket).isEmpty)
    }

    @Test func aWrongSecretIsRefusedAndTheErrorCarriesTheStoresCode() throws {
        try S3Fixture.put(storage, key: "secret/x.mp4", bytes: TestMedia.mp4(size: 300))
        let forged = S3Presigner(
            credentials: SigV4Credentials(accessKeyId: S3TestEndpoint.accessKeyId, secretAccessKey: "not-the-secret"),
            region: S3TestEndpoint.region, endpoint: endpoint.url, addressing: .path, crypto: OpenSSLCrypto())
        let wrong = S3Fixture.storage(endpoint: endpoint.url, bucket: bucket, signer: forged)
        #expect {
            _ = try wrong.read(key: "secret/x.mp4", offset: 0, length: 16)
        } throws: { error in
            "\(error)".contains("403 SignatureDoesNotMatch")
        }
        #expect {
            try wrong.delete(key: "secret/x.mp4")
        } throws: { error in
            "\(error)".contains("403")
        }
        #expect(try storage.inspect(key: "secret/x.mp4", prefixLength: 4) != nil, "the forged DELETE removed nothing")
    }
}
