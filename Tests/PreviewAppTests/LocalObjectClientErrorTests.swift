import Foundation
import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Keys the local store can never hold are the client's error (4xx), never a disk failure
/// (503); a type file that cannot be read is a disk failure, never a skipped check.
@Suite struct LocalObjectClientErrorTests {
    let stored = "previews/9/upload/movie.mp4"
    static let host = ("Host", "127.0.0.1:9")

    func signed(_ app: AppHarness, _ method: String, key: String) throws -> String {
        try app.pathAndQuery(
            app.local.sign(
                method: method, key: key, headers: [],
                query: method == "PUT" ? [(LocalObjectStore.maxBytesParameter, "10")] : [], signingTime: app.now,
                expiresIn: 60))
    }

    func put(_ app: AppHarness, key: String) throws -> HTTPResponse {
        app.send("PUT", try signed(app, "PUT", key: key), body: [1, 2, 3], headers: [Self.host])
    }

    @Test(arguments: [
        "previews/9/upload",  // a folder of other objects
        "previews/9/upload/movie.mp4/part",  // under an object
        "previews/9/" + String(repeating: "a", count: 300) + "/movie.mp4",  // a part over NAME_MAX
    ])
    func aPutToAKeyTheStoreCannotHoldIs400(key: String) throws {
        let app = try AppHarness()
        try app.local.write(key: stored, bytes: [1], contentType: "video/mp4")
        let response = try put(app, key: key)
        #expect(response.status == 400 && response.errorCode == "invalid_argument", "\(response.text)")
        #expect(!app.local.isUploading(key), "the refusal releases the key")
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.local.root + "/tmp") == [])
    }

    @Test(arguments: [
        "previews/9/upload", "previews/9/upload/movie.mp4/part",
        "previews/9/" + String(repeating: "a", count: 300) + "/movie.mp4",
    ])
    func readsAndDeletesOfAKeyTheStoreCannotHoldFindNoObject(key: String) throws {
        let app = try AppHarness()
        try app.local.write(key: stored, bytes: [1], contentType: "video/mp4")
        let get = app.send("GET", try signed(app, "GET", key: key), headers: [Self.host])
        #expect(get.status == 404, "\(get.text)")
        let delete = app.send("DELETE", try signed(app, "DELETE", key: key), headers: [Self.host])
        #expect(delete.status == 204, "\(delete.text)")
        #expect(try app.local.inspect(key: key, prefixLength: 8) == nil)
        #expect(try app.local.exists(key: stored), "the object under the folder stays")
    }

    @Test func aCommitWhoseStoredTypeCannotBeReadIs503AndPublishesNothing() throws {
        let app = try AppHarness()
        let token = app.token("sam", .streamer, streams: [42])
        let issued = try app.upload(stream: 42, token: token, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        let path = app.pathAndQuery(issued.movieThumbnailBodyUrl).split(separator: "?")[0]
        let thumbnailKey = QueryString.decode(String(path.dropFirst(Route.objectsPrefix.count)), plusIsSpace: false)
        // The type file becomes unreadable (a folder in its place; permissions do not stop root).
        let typeFile = app.local.root + "/meta/" + thumbnailKey
        try FileManager.default.removeItem(atPath: typeFile)
        try FileManager.default.createDirectory(atPath: typeFile, withIntermediateDirectories: false)
        let committed = app.send(
            "POST", "/api/preview/commit", token: token,
            json: #"{"streamId":"42","uploadId":"\#(issued.uploadId)"}"#)
        #expect(committed.status == 503 && committed.errorCode == "unavailable", "\(committed.text)")
        #expect(try app.context.store.liveStream(streamId: 42) == nil)
    }
}
