import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The embedded object store checks its SigV4-shaped URLs as S3 does: one method, one key, the signed headers,
/// the expiry, and (our extension) the most bytes a PUT may send.
@Suite("Signed URL checks")
struct SignedURLTests {
    /// 403 `signature_invalid`.
    func expectRefused(_ reply: Reply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 403, "\(what): \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
        let code = (try? reply.json(ErrorResponse.self))?.code
        #expect(code == "signature_invalid", "\(what): \(reply.text)", sourceLocation: sourceLocation)
    }

    @Test("Tampered PUT URLs, wrong methods and wrong headers are 403 and store nothing")
    func tamperedUploadURLs() throws {
        let upload = try IssuedUpload()
        let (api, movie, thumbnail, issued) = (upload.api, upload.movie, upload.thumbnail, upload.issued)
        let url = issued.movieBodyUrl
        let headers = issued.movieHeaders

        let path = String(url[..<(url.firstIndex(of: "?") ?? url.endIndex)])
        let query = String(url[(url.firstIndex(of: "?") ?? url.endIndex)...])
        let otherKey = path.replacingOccurrences(of: issued.uploadId, with: String(repeating: "0", count: 32)) + query
        #expect(otherKey != url)
        expectRefused(try api.put(otherKey, headers: headers, body: movie), "changed key")
        expectRefused(try api.put(path + "x" + query, headers: headers, body: movie), "longer key")
        // The thumbnail's URL cannot be used for the clip's key, nor the other way round.
        let thumbnailURL = issued.movieThumbnailBodyUrl
        let thumbnailQuery = String(thumbnailURL[(thumbnailURL.firstIndex(of: "?") ?? thumbnailURL.endIndex)...])
        expectRefused(
            try api.put(path + thumbnailQuery, headers: issued.thumbnailHeaders, body: thumbnail),
            "query of another key")

        expectRefused(try api.send("GET", url), "PUT URL used with GET")
        #expect(try api.send("HEAD", url).status == 403, "PUT URL used with HEAD (a HEAD answer has no body)")
        let expires = try #require(queryValue(url, name: "X-Amz-Expires"))
        expectRefused(
            try api.put(
                replacingQueryValue(url, name: "X-Amz-Expires", with: String((Int(expires) ?? 0) + 1)),
                headers: headers, body: movie),
            "changed X-Amz-Expires")
        let signature = try #require(queryValue(url, name: "X-Amz-Signature"))
        let flipped = String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0")
        expectRefused(
            try api.put(
                replacingQueryValue(url, name: "X-Amz-Signature", with: flipped), headers: headers, body: movie),
            "changed X-Amz-Signature")
        expectRefused(
            try api.put(
                replacingQueryValue(url, name: "x-sp-max-bytes", with: "99999999"), headers: headers, body: movie),
            "raised x-sp-max-bytes")

        var wrongType = headers
        wrongType["Content-Type"] = "video/quicktime"
        expectRefused(try api.put(url, headers: wrongType, body: movie), "wrong Content-Type")
        var noType = headers
        noType["Content-Type"] = nil
        let missing = try api.send(
            "PUT", url, headers: noType.map { ($0.key, $0.value) } + [("Content-Type", "")], body: movie)
        expectRefused(missing, "missing Content-Type")
        // A genuine URL with a body shorter than its signed Content-Length: a size problem.
        let shorter = try api.put(url, headers: ["Content-Type": "video/mp4"], body: Array(movie.prefix(100)))
        expectError(shorter, status: 413, code: "payload_too_large")

        #expect(try storedObject(upload.service, url: url) == nil, "nothing stored")
        expectError(try upload.commit(), status: 409, code: "object_missing", target: "movie")

        // The untampered URL still works afterwards.
        #expect(try api.put(url, headers: headers, body: movie).status == 200)
    }

    @Test("Tampered GET URLs are 403; the published URL serves the object")
    func tamperedDownloadURLs() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let item = try api.publish(streamId: 42, token: token)
        #expect(try api.send("GET", item.movieUrl).status == 200)
        let signature = try #require(queryValue(item.movieUrl, name: "X-Amz-Signature"))
        let flipped = String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0")
        expectRefused(
            try api.send("GET", replacingQueryValue(item.movieUrl, name: "X-Amz-Signature", with: flipped)), "signature"
        )
        // The clip's query on the thumbnail's path.
        let thumbnailPath = String(item.thumbnailUrl[..<(try #require(item.thumbnailUrl.firstIndex(of: "?")))])
        let movieQuery = String(item.movieUrl[(try #require(item.movieUrl.firstIndex(of: "?")))...])
        expectRefused(try api.send("GET", thumbnailPath + movieQuery), "other key")
        // A GET URL allows no upload: its signature is for GET, so a PUT is refused on the head.
        let replacement = TestMedia.mp4(size: 1000, seed: 9)
        let overwrite = try api.put(item.movieUrl, headers: ["Content-Type": "video/mp4"], body: replacement)
        expectRefused(overwrite, "GET URL used with PUT")
        expectRefused(try api.put(item.movieUrl, headers: [:], body: []), "GET URL used with an empty PUT")
        #expect(try api.send("GET", item.movieUrl).body == TestMedia.mp4(), "the object is unchanged")
        let unsigned = try api.send("GET", thumbnailPath)
        expectRefused(unsigned, "unsigned GET")
        #expect(unsigned.body != TestMedia.jpeg())
    }

    @Test("A PUT larger than the URL allows is 413 and stores nothing")
    func oversizedPut() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        // Declared sizes: more bytes than signed.
        let movie = TestMedia.mp4(size: 1000)
        let thumbnail = TestMedia.jpeg(size: 100)
        let declared = try api.issue(streamId: 42, movie: movie, thumbnail: thumbnail, token: token)
        let bigger = TestMedia.mp4(size: 1500)
        let tooLarge = try api.send(
            "PUT", declared.movieBodyUrl, headers: [("Content-Type", "video/mp4")], body: bigger)
        expectError(tooLarge, status: 413, code: "payload_too_large")

        // No declared sizes: the URL allows up to the type's limit (1 MiB for thumbnails).
        let posted = try api.postJSON("/api/preview/post", #"{"streamId":"42"}"#, token: token)
        let open = try posted.json(StreamPreviewPostResponse.self)
        let overLimit = TestMedia.jpeg(size: 1024 * 1024 + 1)
        let refused = try api.put(open.movieThumbnailBodyUrl, headers: open.thumbnailHeaders, body: overLimit)
        expectError(refused, status: 413, code: "payload_too_large")

        #expect(try storedObject(service, url: declared.movieBodyUrl) == nil, "nothing stored")
        #expect(try storedObject(service, url: open.movieThumbnailBodyUrl) == nil, "nothing stored")
        expectError(
            try api.commit(streamId: 42, uploadId: declared.uploadId, token: token), status: 409,
            code: "object_missing",
            target: "movie")
        #expect(try api.put(open.movieThumbnailBodyUrl, headers: open.thumbnailHeaders, body: thumbnail).status == 200)
        #expect(try api.feedItems().isEmpty)
    }

    @Test("Upload URLs stop working after --upload-url-ttl with 403 url_expired")
    func expiredUploadURL() throws {
        let service = try ServiceProcess(arguments: ["--upload-url-ttl", "1"])
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let movie = TestMedia.mp4()
        let issued = try api.issue(streamId: 42, movie: movie, thumbnail: TestMedia.jpeg(), token: token)
        #expect(abs(issued.expiresAt - (unixNow() + 1)) <= 2)
        while unixNow() <= issued.expiresAt + 1 { usleep(100_000) }
        let reply = try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie)
        expectError(reply, status: 403, code: "url_expired")
    }
}
