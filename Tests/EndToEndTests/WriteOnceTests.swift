import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The embedded store writes each object once, judges a PUT on its head, and serves objects with
/// the type their URL signed: against the built binary, with libcurl and raw sockets.
@Suite("Write-once local store")
struct WriteOnceTests {
    @Test("A second PUT is refused with 409 object_exists, the stored bytes stay, and the upload still commits")
    func secondPutIsRefused() throws {
        let upload = try IssuedUpload()
        try upload.putBoth()
        let replacement = TestMedia.mp4(size: upload.movie.count, seed: 9)
        #expect(replacement != upload.movie)
        let second = try upload.api.put(
            upload.issued.movieBodyUrl, headers: upload.issued.movieHeaders, body: replacement)
        expectError(second, status: 409, code: "object_exists")
        #expect(try storedObject(upload.service, url: upload.issued.movieBodyUrl) == upload.movie)
        #expect(try upload.commit().status == 200)
    }

    @Test("A PUT after commit is refused and the feed's clip URL serves the committed bytes")
    func putAfterCommitIsRefused() throws {
        let upload = try IssuedUpload()
        try upload.putBoth()
        let committed = try upload.commit()
        try #require(committed.status == 200, "commit: \(committed.text)")
        let item = try committed.json(FeedItem.self)
        let html = Array("<html><script>alert(1)</script></html>".utf8)
        let overwrite = try upload.api.put(
            upload.issued.movieBodyUrl, headers: upload.issued.movieHeaders,
            body: html + Array(repeating: 0x20, count: upload.movie.count - html.count))
        expectError(overwrite, status: 409, code: "object_exists")
        let thumbnail = try upload.api.put(
            upload.issued.movieThumbnailBodyUrl, headers: upload.issued.thumbnailHeaders,
            body: TestMedia.jpeg(size: upload.thumbnail.count, seed: 3))
        expectError(thumbnail, status: 409, code: "object_exists")

        let clip = try upload.api.send("GET", try #require(upload.api.feedItems().first).movieUrl)
        #expect(clip.status == 200)
        #expect(clip.body == upload.movie, "the feed serves the bytes commit inspected")
        #expect(clip.headers["Content-Type"] == "video/mp4")
        #expect(clip.headers["X-Content-Type-Options"] == "nosniff")
        #expect(try upload.api.send("GET", item.thumbnailUrl).body == upload.thumbnail)
    }

    @Test("A PUT cut short stores nothing, and a retried full PUT succeeds")
    func putCutShortStoresNothing() throws {
        let upload = try IssuedUpload()
        let target = try RawHTTPTarget(upload.issued.movieBodyUrl)
        let temporary = upload.service.dataDirectory + "/objects/tmp"
        do {
            let connection = try RawHTTPConnection(target)
            // The headers the upload names: its type and its signed Content-Length.
            let headers = upload.issued.movieHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            #expect(upload.issued.movieHeaders["Content-Length"] == String(upload.movie.count))
            try connection.send(target.head("PUT", headers + [("Expect", "100-continue")]))
            // 100 Continue: the head was admitted and the body has its temporary file.
            let interim = try connection.readResponse()
            #expect(
                interim.status == 100,
                "\(interim.status) \(interim.headers) \(String(decoding: interim.body, as: UTF8.self))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).count == 1)
            try connection.send(Array(upload.movie.prefix(upload.movie.count / 2)))
        }  // closed here, half the body sent
        let partialGone = eventually(within: 30) {
            (try? FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty) == true
        }
        #expect(partialGone, "the partial file is gone")
        #expect(try storedObject(upload.service, url: upload.issued.movieBodyUrl) == nil)

        try upload.putBoth()
        let committed = try upload.commit()
        try #require(committed.status == 200, "commit: \(committed.text)")
        let item = try committed.json(FeedItem.self)
        #expect(try upload.api.send("GET", item.movieUrl).body == upload.movie)
    }

    @Test(
        "A second PUT while one streams is 409 upload_in_progress on its head; once the first client is gone the URL takes a PUT"
    )
    func concurrentPutIsRefusedOnItsHead() throws {
        let upload = try IssuedUpload()
        let target = try RawHTTPTarget(upload.issued.movieBodyUrl)
        let headers = upload.issued.movieHeaders.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        do {
            let connection = try RawHTTPConnection(target)
            try connection.send(target.head("PUT", headers + [("Expect", "100-continue")]))
            try #require(try connection.readResponse().status == 100, "the first PUT is admitted")
            try connection.send(Array(upload.movie.prefix(10)))
            let second = try RawHTTPConnection(target)
            try second.send(target.head("PUT", headers + [("Expect", "100-continue")]))
            let refused = try second.readResponse()
            #expect(refused.status == 409, "refused on the head, before 100 Continue")
            #expect(try ErrorResponse(json: refused.body).code == "upload_in_progress")
        }  // the first client goes away with its body unfinished
        var last = 0
        #expect(
            eventually(within: 20) {
                last =
                    (try? upload.api.put(
                        upload.issued.movieBodyUrl, headers: upload.issued.movieHeaders, body: upload.movie
                    ).status) ?? 0
                return last == 200
            }, "a PUT after the first client left: \(last)")
        #expect(try storedObject(upload.service, url: upload.issued.movieBodyUrl) == upload.movie)
    }

    @Test("A PUT of 0 bytes is refused with 400 on its head and stores nothing")
    func emptyPutIsRefused() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let result = try service.run(
            [
                "presign", "--storage", "local", "--endpoint", service.baseURL, "--data-dir", service.dataDirectory,
                "--method", "PUT", "--key", "previews/5/empty/movie.mp4", "--query", "x-sp-max-bytes=100",
            ])
        try #require(result.status == 0, "presign: \(result.stderr)")
        let url = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        expectError(try api.put(url, headers: [:], body: []), status: 400, code: "invalid_argument")
        #expect(try storedObject(service, url: url) == nil)
    }

    @Test("A bad signature with Expect: 100-continue and 10 MiB declared is answered 403 at once and closed")
    func badSignatureIsAnsweredOnTheHead() throws {
        let upload = try IssuedUpload()
        let url = upload.issued.movieBodyUrl
        let signature = try #require(queryValue(url, name: "X-Amz-Signature"))
        let forged = replacingQueryValue(
            url, name: "X-Amz-Signature", with: String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0"))
        let target = try RawHTTPTarget(forged)
        let connection = try RawHTTPConnection(target)
        try connection.send(
            target.head(
                "PUT",
                [
                    ("Content-Type", "video/mp4"), ("Content-Length", String(10 * 1024 * 1024)),
                    ("Expect", "100-continue"),
                ]))
        // No body byte is sent: a server waiting for one would let the read deadline pass.
        let response = try connection.readResponse()
        #expect(response.status == 403, "the first answer is the refusal, not 100 Continue")
        #expect(try ErrorResponse(json: response.body).code == "signature_invalid")
        #expect(response["Connection"]?.lowercased() == "close")
        #expect(response["X-Content-Type-Options"] == "nosniff")
        #expect(try connection.closedByServer())
    }

    @Test("A chunked PUT is refused with 411 length_required and stores nothing")
    func chunkedPutNeedsALength() throws {
        let upload = try IssuedUpload()
        let target = try RawHTTPTarget(upload.issued.movieBodyUrl)
        let connection = try RawHTTPConnection(target)
        let headers = upload.issued.movieHeaders.filter { $0.key.lowercased() != "content-length" }
            .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        try connection.send(target.head("PUT", headers + [("Transfer-Encoding", "chunked")]))
        let response = try connection.readResponse()
        #expect(response.status == 411)
        #expect(try ErrorResponse(json: response.body).code == "length_required")
        #expect(try connection.closedByServer())
        #expect(try storedObject(upload.service, url: upload.issued.movieBodyUrl) == nil)
    }

    @Test("An object is served with the type its URL signed and nosniff, never the type the client sent")
    func servedTypeIsTheSignedOne() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let key = "previews/5/handmade/page.bin"
        func presign(_ method: String, _ extra: [String]) throws -> String {
            let result = try service.run(
                [
                    "presign", "--storage", "local", "--endpoint", service.baseURL, "--data-dir",
                    service.dataDirectory, "--method", method, "--key", key,
                ] + extra)
            try #require(result.status == 0, "presign: \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A URL that signs no content type: the client's text/html must not be what is served.
        let put = try presign("PUT", ["--query", "x-sp-max-bytes=100"])
        let page = Array("<html><script>alert(1)</script></html>".utf8)
        #expect(try api.put(put, headers: ["Content-Type": "text/html"], body: page).status == 200)
        let get = try api.send("GET", try presign("GET", []))
        #expect(get.status == 200)
        #expect(get.body == page)
        #expect(get.headers["Content-Type"] == "application/octet-stream")
        #expect(get.headers["X-Content-Type-Options"] == "nosniff")
    }
}
