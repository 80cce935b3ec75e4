import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// RemoteObjectStorage against moto_server on loopback. moto does NOT check signatures: these tests
/// prove plumbing only — our HEAD, ranged GET, DELETE and signed PUT reach the right object, keys
/// arrive byte for byte (moto's own listing), ranges and 404s are read right. That our signatures
/// verify is proven by the LocalStack suites (scripts/test-s3.sh).
@Suite(.serialized) struct S3MotoStorageTests {
    let moto: MotoServer
    let bucket = S3TestEndpoint.uniqueBucket("sp-moto")
    let storage: RemoteObjectStorage

    init() throws {
        moto = try MotoServer.start()
        try moto.endpoint.createBucket(bucket)
        storage = S3Fixture.storage(endpoint: moto.endpoint.url, bucket: bucket)
    }

    @Test func awkwardKeysArriveByteForByteAndCanBeInspectedReadAndDeleted() throws {
        var contents: [[UInt8]] = []
        for (index, key) in S3Fixture.awkwardKeys.enumerated() {
            let bytes = TestMedia.mp4(size: 600 + index, seed: UInt8(index))
            contents.append(bytes)
            try S3Fixture.put(storage, key: key, bytes: bytes)
        }
        // moto's own listing: exactly our keys, no dot segments resolved, no slashes merged, NFC ≠ NFD.
        #expect(
            S3Fixture.byteKeys(try moto.endpoint.listKeys(bucket: bucket)) == S3Fixture.byteKeys(S3Fixture.awkwardKeys))

        for (key, bytes) in zip(S3Fixture.awkwardKeys, contents) {
            let info = try #require(try storage.inspect(key: key, prefixLength: 16), "inspect \(key)")
            #expect(info.size == Int64(bytes.count), "\(key)")
            #expect(info.contentType == "video/mp4", "\(key)")
            #expect(info.prefix == Array(bytes.prefix(16)), "\(key)")
            #expect(try storage.read(key: key, offset: 100, length: 50) == Array(bytes[100..<150]), "\(key)")
        }
        for key in S3Fixture.awkwardKeys {
            try storage.delete(key: key)
            #expect(try storage.inspect(key: key, prefixLength: 16) == nil, "\(key) after delete")
        }
        #expect(try moto.endpoint.listKeys(bucket: bucket).isEmpty)
    }

    @Test func rangesReturnWhatExistsAndNothingPastTheEnd() throws {
        let bytes = TestMedia.jpeg(size: 300)
        try S3Fixture.put(storage, key: "ranges/t.jpg", bytes: bytes, type: .jpeg)
        #expect(try storage.read(key: "ranges/t.jpg", offset: 0, length: 3) == [0xFF, 0xD8, 0xFF])
        #expect(try storage.read(key: "ranges/t.jpg", offset: 290, length: 50) == Array(bytes[290...]))
        #expect(try storage.read(key: "ranges/t.jpg", offset: 300, length: 10) == [])
        #expect(try storage.read(key: "ranges/t.jpg", offset: 5, length: 0) == [])
        let whole = try #require(try storage.inspect(key: "ranges/t.jpg", prefixLength: 1000))
        #expect(whole.prefix == bytes && whole.size == 300 && whole.contentType == "image/jpeg")
    }

    @Test func missingObjectsAreAbsentAndDeletingThemSucceeds() throws {
        #expect(try storage.inspect(key: "missing/x.mp4", prefixLength: 16) == nil)
        #expect(try storage.read(key: "missing/x.mp4", offset: 0, length: 16) == nil)
        #expect(try storage.read(key: "missing/x.mp4", offset: 0, length: 0) == nil)
        try storage.delete(key: "missing/x.mp4")
    }

    @Test func aMissingBucketIsAClearErrorNotAnAbsentObject() throws {
        let other = S3Fixture.storage(
            endpoint: moto.endpoint.url, bucket: "sp-no-such-bucket-\(UUID().uuidString.prefix(6).lowercased())")
        #expect {
            _ = try other.read(key: "x", offset: 0, length: 4)
        } throws: { error in
            "\(error)".contains("NoSuchBucket")
        }
    }
}
