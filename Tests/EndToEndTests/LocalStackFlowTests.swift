import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The whole flow through the built binary with `--storage s3` against LocalStack's S3 with signature
/// validation on (S3_SKIP_SIGNATURE_VALIDATION=0), run by scripts/test-s3.sh inside a network namespace
/// with only loopback. Fails (never skips) when STREAMPREVIEW_TEST_LOCALSTACK is unset.
///
/// Proves that the URLs the service signs verify over the wire (upload PUT, feed GET, and commit's own
/// HEAD and ranged GET), and that they bind what they should: a tampered signature, another key, an
/// expired URL, another Content-Type or Content-Length, a missing If-None-Match, another host are all
/// refused with 403; a second PUT of an upload URL gets 412 (If-None-Match: *).
/// Does not prove anything about GCS, virtual-hosted addressing, or AWS quirks LocalStack does not model.
@Suite("S3 flow against LocalStack (signatures verified over the wire)")
struct LocalStackFlowTests {
    @Test func uploadCommitFeedAndPlayWithSignaturesLocalStackVerifies() throws {
        let flow = try S3Flow(endpoint: try LocalStackS3.endpoint(), bucketPrefix: "sp-lsflow")
        try flow.publishAndPlay(streamId: 901)
    }

    @Test func urlsThatWereTamperedWithOrDoNotMatchTheSignedRequestAreRefused() throws {
        let flow = try S3Flow(endpoint: try LocalStackS3.endpoint(), bucketPrefix: "sp-lsneg")
        let token = try flow.service.token(sub: "s3-902", role: "streamer", streams: [902])
        let movie = TestMedia.mp4(size: 2000)
        let issued = try flow.api.issue(streamId: 902, movie: movie, thumbnail: TestMedia.jpeg(), token: token)
        let url = issued.movieBodyUrl
        let headers = issued.movieHeaders

        // One hex digit of the signature changed.
        let signature = try #require(url.components(separatedBy: "X-Amz-Signature=").last)
        let flipped = (signature.first == "0" ? "1" : "0") + signature.dropFirst()
        expectForbidden(
            try flow.api.put(
                replacingQueryValue(url, name: "X-Amz-Signature", with: flipped), headers: headers, body: movie),
            "tampered signature")
        // Another object key with the same query.
        expectForbidden(
            try flow.api.put(url.replacingOccurrences(of: "/movie.", with: "/movie2."), headers: headers, body: movie),
            "changed key")
        // Another Content-Type than the signed one.
        var otherType = headers
        otherType["Content-Type"] = "video/quicktime"
        expectForbidden(try flow.api.put(url, headers: otherType, body: movie), "wrong Content-Type")
        // A body of another length than the signed Content-Length (curl sends the real length).
        expectForbidden(
            try flow.api.put(url, headers: headers.filter { $0.key != "Content-Length" }, body: movie + [0]),
            "wrong length")
        // Without the signed If-None-Match: the precondition cannot be dropped to overwrite.
        expectForbidden(
            try flow.api.put(url, headers: headers.filter { $0.key != "If-None-Match" }, body: movie),
            "no If-None-Match")
        // Another host name for the same server: host is signed.
        let otherHost = url.replacingOccurrences(of: "http://127.0.0.1:", with: "http://localhost:")
        if otherHost != url {
            expectForbidden(try flow.api.put(otherHost, headers: headers, body: movie), "wrong host")
        }

        // Nothing of the above stored anything; the real PUT works.
        #expect(try flow.endpoint.listKeys(bucket: flow.bucket).isEmpty)
        #expect(try flow.api.put(url, headers: headers, body: movie).status == 200)
    }

    @Test func anExpiredUploadURLIsRefused() throws {
        let flow = try S3Flow(
            endpoint: try LocalStackS3.endpoint(), bucketPrefix: "sp-lsexp", extraArguments: ["--upload-url-ttl", "1"])
        let token = try flow.service.token(sub: "s3-903", role: "streamer", streams: [903])
        let movie = TestMedia.mp4(size: 1500)
        let issued = try flow.api.issue(streamId: 903, movie: movie, thumbnail: TestMedia.jpeg(), token: token)
        Thread.sleep(forTimeInterval: 2.5)
        let late = try flow.api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie)
        expectForbidden(late, "expired URL")
        #expect(late.text.contains("AccessDenied") || late.text.contains("expired"), "\(late.text)")
    }

    /// Upload URLs sign `If-None-Match: *`: LocalStack, like S3, answers 412 PreconditionFailed to a
    /// second PUT of the same URL, before and after commit, and the feed serves the first bytes.
    @Test func anUploadURLWritesItsObjectOnceAndTheFeedServesTheFirstBytes() throws {
        let flow = try S3Flow(endpoint: try LocalStackS3.endpoint(), bucketPrefix: "sp-lsonce")
        try flow.writeOnceUpload(streamId: 904)
    }

    private func expectForbidden(_ reply: Reply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 403, "\(what): \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
    }
}
