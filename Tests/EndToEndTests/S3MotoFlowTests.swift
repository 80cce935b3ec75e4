import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The whole flow through the built binary with `--storage s3` against moto_server on loopback.
///
/// Proves plumbing: the service hands out path-style URLs on the endpoint, the uploader's PUTs land in
/// the bucket, commit verification reaches the objects (HEAD: size, type; ranged GET: leading bytes) and
/// refuses what does not match, the feed's GET URLs serve the exact bytes, an upload URL writes once
/// (moto honours `If-None-Match: *`), undeclared sizes are refused. Does NOT prove the signatures
/// are valid: moto accepts any. LocalStackFlowTests (scripts/test-s3.sh) proves that.
@Suite("S3 flow against moto (plumbing only; moto checks no signature)")
struct S3MotoFlowTests {
    @Test func uploadCommitFeedAndPlayGoThroughTheBucket() throws {
        let flow = try S3Flow(endpoint: try MotoServer.start().endpoint, bucketPrefix: "sp-flow")
        try flow.publishAndPlay(streamId: 801)
        let keys = try flow.endpoint.listKeys(bucket: flow.bucket)
        #expect(keys.count == 2 && keys.allSatisfy { $0.hasPrefix("previews/801/") }, "\(keys)")
    }

    @Test func readyzIsOffWhileTheBucketIsMissingAndOnAgainOnceItIsBack() throws {
        let flow = try S3Flow(endpoint: try MotoServer.start().endpoint, bucketPrefix: "sp-ready")
        // Each serve process probes the bucket itself: ask each one (all of them in replica mode).
        let replicas = flow.service.replicaURLs
        func ready(_ replica: String) -> (status: Int, body: String)? {
            guard let reply = try? flow.api.send("GET", replica + "/readyz") else { return nil }
            return (reply.status, String(decoding: reply.body, as: UTF8.self))
        }
        for replica in replicas {
            #expect(eventually(within: 15) { ready(replica)?.status == 200 }, "\(replica): ready with the bucket")
        }
        #expect(try flow.endpoint.send("DELETE", "/\(flow.bucket)").status == 204)
        for replica in replicas {
            let off = eventually(within: 15) {
                guard let reply = ready(replica) else { return false }
                return reply.status == 503 && reply.body.contains("object store unavailable")
            }
            #expect(off, "\(replica): not ready once the bucket is gone")
        }
        try flow.endpoint.createBucket(flow.bucket)
        for replica in replicas {
            #expect(eventually(within: 15) { ready(replica)?.status == 200 }, "\(replica): ready with the bucket back")
        }
    }

    @Test func commitRefusesObjectsThatAreMissingOrNotWhatWasDeclared() throws {
        let flow = try S3Flow(endpoint: try MotoServer.start().endpoint, bucketPrefix: "sp-verify")
        let token = try flow.service.token(sub: "s3-802", role: "streamer", streams: [802])
        let movie = TestMedia.mp4(size: 3000)
        let thumbnail = TestMedia.jpeg(size: 500)

        // Nothing uploaded: the movie is missing.
        let issued = try flow.api.issue(streamId: 802, movie: movie, thumbnail: thumbnail, token: token)
        expectError(
            try flow.api.commit(streamId: 802, uploadId: issued.uploadId, token: token), status: 409,
            code: "object_missing", target: "movie")

        // moto ignores the signed Content-Length, so junk of the declared size lands: the leading bytes refuse it.
        var junk = TestMedia.junk(size: movie.count)
        junk = Array(junk.prefix(movie.count))
        try flow.api.putBoth(issued, movie: junk, thumbnail: thumbnail)
        expectError(
            try flow.api.commit(streamId: 802, uploadId: issued.uploadId, token: token), status: 422,
            code: "object_content_mismatch", target: "movie")
    }

    /// moto, like S3, answers 412 PreconditionFailed to a PUT with `If-None-Match: *` on an existing key.
    @Test func anUploadURLWritesItsObjectOnceAndTheFeedServesTheFirstBytes() throws {
        let flow = try S3Flow(endpoint: try MotoServer.start().endpoint, bucketPrefix: "sp-once")
        try flow.writeOnceUpload(streamId: 804)
    }

    /// S3 URLs can bind only an exact Content-Length: a request without a declared size gets no URL.
    @Test func anUploadRequestWithoutDeclaredSizesIsRefusedNamingTheMissingField() throws {
        let flow = try S3Flow(endpoint: try MotoServer.start().endpoint, bucketPrefix: "sp-sizes")
        let token = try flow.service.token(sub: "s3-803", role: "streamer", streams: [803])
        for (movieBytes, thumbnailBytes, field) in [(0, 700, "movieBytes"), (5000, 0, "thumbnailBytes")]
            as [(Int64, Int64, String)]
        {
            let reply = try flow.api.requestUpload(
                StreamPreviewPostRequest(streamId: 803, movieBytes: movieBytes, thumbnailBytes: thumbnailBytes),
                token: token)
            expectError(reply, status: 400, code: "invalid_argument", target: field)
        }
        #expect(try flow.endpoint.listKeys(bucket: flow.bucket).isEmpty)
    }
}
