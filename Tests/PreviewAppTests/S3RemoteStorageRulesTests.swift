import Foundation
import PreviewCore
import PreviewCrypto
import Testing

@testable import PreviewApp

/// The pure parts of the remote object client: retry decisions and delays, XML error codes, and
/// what an upload URL signs per backend. No server.
@Suite struct S3RemoteStorageRulesTests {
    @Test func fiveHundredsTooManyRequestsAndNetworkFailuresAreRetriedOtherAnswersAreNot() {
        for status in [500, 502, 503, 504, 429] { #expect(RetryPolicy.isRetryable(.status(status))) }
        for status in [200, 206, 304, 400, 403, 404, 412, 416] { #expect(!RetryPolicy.isRetryable(.status(status))) }
        #expect(RetryPolicy.isRetryable(.timeout) && RetryPolicy.isRetryable(.connect))
        #expect(RetryPolicy.isRetryable(.transfer) && !RetryPolicy.isRetryable(.fatal))
    }

    @Test func backoffDoublesUpToTheCapAndJitterPicksWithinIt() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 0.1, maxDelay: 1.0, maxTotal: 100)
        #expect(policy.delay(afterAttempt: 1, random: 1) == 0.1)
        #expect(policy.delay(afterAttempt: 2, random: 1) == 0.2)
        #expect(policy.delay(afterAttempt: 3, random: 1) == 0.4)
        #expect(policy.delay(afterAttempt: 5, random: 1) == 1.0)
        #expect(policy.delay(afterAttempt: 40, random: 1) == 1.0)
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == 0.2)
        #expect(policy.delay(afterAttempt: 3, random: 0) == 0)
    }

    @Test func retriesStopAtTheAttemptLimitAndTheTimeBudget() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxDelay: 8, maxTotal: 5)
        #expect(policy.retryDelay(after: .status(503), attempt: 1, elapsed: 0, random: 1) == 1)
        #expect(policy.retryDelay(after: .status(503), attempt: 2, elapsed: 1, random: 1) == 2)
        #expect(policy.retryDelay(after: .status(503), attempt: 3, elapsed: 3, random: 1) == nil)
        #expect(policy.retryDelay(after: .timeout, attempt: 2, elapsed: 3.5, random: 1) == nil)
        #expect(policy.retryDelay(after: .status(403), attempt: 1, elapsed: 0, random: 1) == nil)
    }

    @Test func theStoresErrorCodeAndMessageAreReadFromItsXMLBody() {
        let s3 = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match &amp; so on</Message>\
            <StringToSign>AWS4-HMAC-SHA256</StringToSign></Error>
            """
        let parsed = StoreErrorBody.parse(Array(s3.utf8))
        #expect(parsed?.code == "SignatureDoesNotMatch")
        #expect(parsed?.message == "The request signature we calculated does not match & so on")
        #expect(
            StoreErrorBody.parse(Array("<Error><Code>AccessDenied</Code></Error>".utf8)) == .init(code: "AccessDenied"))
        #expect(StoreErrorBody.parse([]) == nil)
        #expect(StoreErrorBody.parse(Array("<html>bad gateway</html>".utf8)) == nil)
        #expect(StoreErrorBody.decodeEntities("a&lt;b&#62;c&#x41;&bogus;&") == "a<b>cA&bogus;&")
    }

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
