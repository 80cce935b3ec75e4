import Foundation
import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The local store decides a PUT on its head, streams the body to a temporary file, and writes
/// each object once; driven through the router as the server drives it (`admit`, then `respond`).
@Suite struct LocalObjectWriteOnceTests {
    let key = "previews/9/upload/movie.mp4"
    /// The authority the harness signs for.
    static let host = ("Host", "127.0.0.1:9")

    /// A PUT URL for `key` signed now, with the headers it signs and `x-sp-max-bytes`.
    func putURL(
        _ app: AppHarness, headers: [(name: String, value: String)], maxBytes: Int, expiresIn: Int64 = 60
    ) throws -> String {
        try app.pathAndQuery(
            app.local.sign(
                method: "PUT", key: key, headers: headers,
                query: [(LocalObjectStore.maxBytesParameter, String(maxBytes))], signingTime: app.now,
                expiresIn: expiresIn))
    }

    func put(_ app: AppHarness, _ target: String, body: [UInt8], headers: [(String, String)]) -> HTTPResponse {
        app.send("PUT", target, body: body, headers: headers + [Self.host])
    }

    /// The head of a PUT to `target` (a path and query).
    func head(_ target: String, _ headers: [(String, String)]) -> HTTPRequestHead {
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        return HTTPRequestHead(
            method: "PUT", path: parts[0], rawQuery: parts.count > 1 ? parts[1] : "",
            headers: HTTPHeaders(headers + [Self.host]))
    }

    /// The sink a head is admitted with; fails the test when it is answered at once instead.
    func streamed(_ app: AppHarness, _ head: HTTPRequestHead) throws -> any HTTPBodySink {
        let admission = app.router.admit(head)
        var sink: (any HTTPBodySink)?
        if case .stream(let admitted) = admission { sink = admitted }
        return try #require(sink, "the PUT should be admitted: \(admission)")
    }

    /// The response a head is refused with at once; fails the test when it is admitted.
    func refused(_ app: AppHarness, _ head: HTTPRequestHead) throws -> HTTPResponse {
        let admission = app.router.admit(head)
        var response: HTTPResponse?
        if case .reject(let refusal) = admission { response = refusal }
        return try #require(response, "the PUT should be refused on its head: \(head.headers)")
    }

    func temporaryFiles(_ app: AppHarness) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: app.local.root + "/tmp")
    }

    @Test func aSecondPutIsRefusedWithObjectExistsAndTheFirstBytesStay() throws {
        let app = try AppHarness()
        let first = TestClips.mp4
        let url = try putURL(app, headers: [("content-type", "video/mp4")], maxBytes: 100_000)
        #expect(put(app, url, body: first, headers: [("Content-Type", "video/mp4")]).status == 200)
        let second = put(
            app, url, body: Array(repeating: 7, count: first.count), headers: [("Content-Type", "video/mp4")])
        #expect(second.status == 409, "\(second.text)")
        #expect(second.errorCode == "object_exists")
        #expect(try app.local.read(key: key, offset: 0, length: 1 << 20) == first)
        #expect(try temporaryFiles(app) == [])
    }

    @Test func aSecondPutWhileOneStreamsIsRefusedOnItsHeadUntilTheFirstEnds() throws {
        let app = try AppHarness()
        let url = try app.pathAndQuery(
            app.local.sign(
                method: "PUT", key: key, headers: [], query: [(LocalObjectStore.maxBytesParameter, "10")],
                signingTime: app.now, expiresIn: 60))
        let head = head(url, [("Content-Length", "3")])
        let first = try streamed(app, head)
        #expect([UInt8]([1, 2]).withUnsafeBytes { first.write($0) })
        let second = try refused(app, head)
        #expect(second.status == 409 && second.errorCode == "upload_in_progress", "\(second.text)")
        #expect(try temporaryFiles(app).count == 1, "the refused PUT got no temporary file")
        first.abandon()  // the client went away: the key takes a PUT again
        #expect(!app.local.isUploading(key))
        let retry = try streamed(app, head)
        #expect([UInt8]([1, 2, 3]).withUnsafeBytes { retry.write($0) })
        var request = HTTPRequest(method: head.method, path: head.path, rawQuery: head.rawQuery, headers: head.headers)
        request.bodySink = retry
        #expect(app.router.respond(to: request).status == 200)
        #expect(!app.local.isUploading(key), "publishing releases the key too")
        let after = try refused(app, head)
        #expect(after.status == 409 && after.errorCode == "object_exists", "\(after.text)")
        #expect(try app.local.read(key: key, offset: 0, length: 10) == [1, 2, 3])
        #expect(try temporaryFiles(app) == [])
    }

    @Test func aRefusedBodyReleasesTheKey() throws {
        let app = try AppHarness()
        let url = try putURL(app, headers: [], maxBytes: 10)
        let upload = try streamed(app, head(url, [("Content-Length", "2")]))
        #expect(![UInt8]([1, 2, 3]).withUnsafeBytes { upload.write($0) })
        #expect(!app.local.isUploading(key))
    }

    @Test func aZeroBytePutIsRefusedOnItsHead() throws {
        let app = try AppHarness()
        let url = try putURL(app, headers: [], maxBytes: 10)
        let response = try refused(app, head(url, [("Content-Length", "0")]))
        #expect(response.status == 400 && response.errorCode == "invalid_argument", "\(response.text)")
        #expect(try !app.local.exists(key: key))
        #expect(try temporaryFiles(app) == [])
    }

    @Test func aPutCutShortStoresNothingAndCanBeRetried() throws {
        let app = try AppHarness()
        let url = try putURL(app, headers: [("content-type", "video/mp4")], maxBytes: 100_000)
        let upload = try streamed(
            app, head(url, [("Content-Type", "video/mp4"), ("Content-Length", String(TestClips.mp4.count))]))
        #expect(TestClips.mp4.prefix(100).withUnsafeBytes { upload.write($0) })
        #expect(try temporaryFiles(app).count == 1, "the body goes to one temporary file")
        upload.abandon()  // the client went away
        #expect(try temporaryFiles(app) == [])
        #expect(try !app.local.exists(key: key))
        #expect(put(app, url, body: TestClips.mp4, headers: [("Content-Type", "video/mp4")]).status == 200)
        #expect(try app.local.read(key: key, offset: 0, length: 1 << 20) == TestClips.mp4)
    }

    @Test func partialUploadsLeftByAStoppedProcessAreRemovedWhenTheStoreOpens() throws {
        let app = try AppHarness()
        let url = try putURL(app, headers: [], maxBytes: 10)
        let upload = try streamed(app, head(url, [("Content-Length", "4")]))
        #expect([UInt8]([1, 2]).withUnsafeBytes { upload.write($0) })
        #expect(try temporaryFiles(app).count == 1)
        // The process stops here; the next one opens the same folder.
        _ = try LocalObjectStore(
            root: app.local.root, publicBaseURL: nil, secret: "storage-secret", grid: ExpiryGrid(),
            crypto: app.context.crypto)
        #expect(try temporaryFiles(app) == [])
        #expect(try !app.local.exists(key: key))
    }

    @Test func aBodyLongerThanItsContentLengthIsRefusedAndStoresNothing() throws {
        let app = try AppHarness()
        let url = try putURL(app, headers: [], maxBytes: 10)
        let upload = try streamed(app, head(url, [("Content-Length", "4")]))
        #expect(!Array(repeating: UInt8(1), count: 5).withUnsafeBytes { upload.write($0) })
        #expect(try temporaryFiles(app) == [])
        #expect(try !app.local.exists(key: key))
    }

    @Test func headsAreAnsweredBeforeTheBodyWithOneStableCodeEach() throws {
        let app = try AppHarness()
        let signed = try putURL(app, headers: [("content-type", "video/mp4"), ("content-length", "5")], maxBytes: 5)
        let type = ("Content-Type", "video/mp4")
        let cases: [(String, [(String, String)], Int, String)] = [
            (signed, [type, ("Transfer-Encoding", "chunked")], 411, "length_required"),
            (signed, [type, ("Content-Length", "6")], 413, "payload_too_large"),
            (signed, [type, ("Content-Length", "4")], 413, "payload_too_large"),
            (signed, [("Content-Type", "text/html"), ("Content-Length", "5")], 403, "signature_invalid"),
            (
                signed.replacingOccurrences(of: "x-sp-max-bytes=5", with: "x-sp-max-bytes=6"),
                [type, ("Content-Length", "6")], 403, "signature_invalid"
            ),
            (String(signed.split(separator: "?")[0]), [type, ("Content-Length", "5")], 403, "signature_invalid"),
        ]
        for (target, headers, status, code) in cases {
            let response = try refused(app, head(target, headers))
            #expect(response.status == status && response.errorCode == code, "\(headers): \(response.text)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        }
        app.advance(seconds: 61)
        let expired = try refused(app, head(signed, [type, ("Content-Length", "5")]))
        #expect(expired.status == 403 && expired.errorCode == "url_expired", "\(expired.text)")
        #expect(try temporaryFiles(app) == [])
    }

    @Test func theStoredTypeIsTheSignedOneNeverTheClients() throws {
        let app = try AppHarness()
        let unsigned = try putURL(app, headers: [], maxBytes: 100)
        #expect(put(app, unsigned, body: [1, 2, 3], headers: [("Content-Type", "text/html")]).status == 200)
        #expect(try app.local.storedContentType(key) == "application/octet-stream")
        let get = app.send(
            "GET", try app.pathAndQuery(app.local.downloadURL(key: key, now: app.now)), headers: [Self.host])
        #expect(get.status == 200)
        #expect(get.headers["Content-Type"] == "application/octet-stream")
        #expect(get.headers["X-Content-Type-Options"] == "nosniff")
    }

    @Test func anUnsatisfiableRangeIs416WithAnErrorBodyAndTheObjectsLength() throws {
        let app = try AppHarness()
        #expect(put(app, try putURL(app, headers: [], maxBytes: 100), body: [1, 2, 3], headers: []).status == 200)
        let url = try app.pathAndQuery(app.local.downloadURL(key: key, now: app.now))
        let response = app.send("GET", url, headers: [("Range", "bytes=3-"), Self.host])
        #expect(response.status == 416)
        #expect(response.errorCode == "range_not_satisfiable", "\(response.text)")
        #expect(response.headers["Content-Range"] == "bytes */3")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        let partial = app.send("GET", url, headers: [("Range", "bytes=1-"), Self.host])
        #expect(partial.status == 206 && partial.headers["X-Content-Type-Options"] == "nosniff")
    }
}
