import Foundation
import PreviewCore
import PreviewCrypto
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// What an upload URL signs per backend (the retry and XML error rules are in PreviewCoreTests). No server.
@Suite struct S3RemoteStorageRulesTests {
    @Test func anS3UploadURLSignsTheContentTypeTheExactDeclaredLengthAndIfNoneMatch() throws {
        let storage = S3Fixture.storage(endpoint: "http://127.0.0.1:9", bucket: "bkt")
        let spec = UploadSpec.ObjectSpec(type: .mp4, declaredBytes: 1234, maxBytes: 1234)
        let target = try storage.uploadTarget(
            key: "previews/1/u/movie.mp4", spec: spec, now: 1_700_000_000, expiresIn: 900)
        #expect(target.headers == ["Content-Type": "video/mp4", "Content-Length": "1234", "If-None-Match": "*"])
        #expect(target.url.hasPrefix("http://127.0.0.1:9/bkt/previews/1/u/movie.mp4?"))
        #expect(target.url.contains("X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bif-none-match&"))
        #expect(target.url.contains("X-Amz-Expires=900"))
    }

    @Test func aGCSUploadURLSignsTheContentTypeALengthRangeAndAGenerationMatchOfZero() throws {
        let signer = try GCSV4Presigner(
            credentials: .hmac(accessId: "GOOGTEST", secret: "secret"), endpoint: "http://127.0.0.1:9",
            crypto: OpenSSLCrypto())
        let client = RemoteObjectClient(signer: signer, bucket: "bkt")
        let storage = RemoteObjectStorage(backend: .gcs, client: client, publicBaseURL: nil, grid: ExpiryGrid())
        let spec = UploadSpec.ObjectSpec(type: .jpeg, declaredBytes: nil, maxBytes: 5000)
        let target = try storage.uploadTarget(key: "k.jpg", spec: spec, now: 1_700_000_000, expiresIn: 900)
        #expect(
            target.headers == [
                "Content-Type": "image/jpeg", "x-goog-content-length-range": "0,5000",
                "x-goog-if-generation-match": "0",
            ])
        #expect(
            target.url.contains(
                "X-Goog-SignedHeaders=content-type%3Bhost%3Bx-goog-content-length-range%3Bx-goog-if-generation-match&"))
    }

    @Test func onlyS3StorageRequiresDeclaredSizes() throws {
        func policy(_ arguments: [String]) throws -> UploadPolicy {
            let parsed = try OptionParser.parse(arguments, environment: [:], specs: ServeOptions.specs)
            return try ServeOptions.parse(parsed).policy
        }
        #expect(try policy(["--storage", "s3", "--bucket", "b"]).declaredSizes == .required)
        #expect(try policy(["--storage", "gcs", "--bucket", "b"]).declaredSizes == .optional)
        #expect(try policy(["--storage", "local"]).declaredSizes == .optional)
        #expect(try policy([]).declaredSizes == .optional)
    }

    @Test func downloadURLsAreSignedOnTheGridOrPlainOnThePublicBase() throws {
        let storage = S3Fixture.storage(endpoint: "http://127.0.0.1:9", bucket: "bkt")
        let grid = ExpiryGrid()
        let first = try storage.downloadURL(key: "a b.mp4", now: 1_700_000_000)
        let sameWindow = try storage.downloadURL(
            key: "a b.mp4", now: grid.signingTime(at: 1_700_000_000) + grid.window - 1)
        let nextWindow = try storage.downloadURL(key: "a b.mp4", now: grid.signingTime(at: 1_700_000_000) + grid.window)
        #expect(first == sameWindow && first != nextWindow)
        #expect(first.hasPrefix("http://127.0.0.1:9/bkt/a%20b.mp4?") && first.contains("X-Amz-Expires=3600"))

        let client = RemoteObjectClient(signer: S3Fixture.s3Signer(endpoint: "http://127.0.0.1:9"), bucket: "bkt")
        let cdn = RemoteObjectStorage(
            backend: .s3, client: client, publicBaseURL: "https://cdn.example.com", grid: grid)
        #expect(try cdn.downloadURL(key: "a b.mp4", now: 1) == "https://cdn.example.com/a%20b.mp4")
    }
}
