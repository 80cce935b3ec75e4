import PreviewCore
import PreviewTestSupport
import Testing

/// A fresh server with upload URLs issued to streamer `sam` of stream 42 for a default clip and thumbnail
/// (`TestMedia.mp4()`, `TestMedia.jpeg()`); nothing is PUT yet.
struct IssuedUpload {
    let service: ServiceProcess
    let api: APIClient
    let token: String
    let movie = TestMedia.mp4()
    let thumbnail = TestMedia.jpeg()
    let issued: StreamPreviewPostResponse

    /// `serviceArguments` go to `streampreview serve` (e.g. `--preview-ttl 1`); `testClock` lets the test move
    /// the server's clock (`ServiceProcess.shiftClock(by:)`).
    init(
        serviceArguments: [String] = [], testClock: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        service = try ServiceProcess(arguments: serviceArguments, testClock: testClock)
        api = try APIClient(service)
        token = try service.token(sub: "sam", role: "streamer", streams: [42])
        issued = try api.issue(
            streamId: 42, movie: movie, thumbnail: thumbnail, token: token, sourceLocation: sourceLocation)
    }

    /// PUTs the clip to its signed URL.
    func putMovie() throws -> Reply { try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie) }

    /// PUTs the thumbnail to its signed URL.
    func putThumbnail() throws -> Reply {
        try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail)
    }

    /// PUTs both objects, expecting 200 for each.
    func putBoth(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try api.putBoth(issued, movie: movie, thumbnail: thumbnail, sourceLocation: sourceLocation)
    }

    /// POST /api/preview/commit of this upload.
    func commit() throws -> Reply { try api.commit(streamId: 42, uploadId: issued.uploadId, token: token) }
}

/// A fresh server where streamer `sam` has published stream 42, with tokens for the viewers `ann` and `bob`.
struct PublishedStream {
    let service: ServiceProcess
    let api: APIClient
    let streamer: String
    let ann: String
    let bob: String

    init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        service = try ServiceProcess()
        api = try APIClient(service)
        streamer = try service.token(sub: "sam", role: "streamer", streams: [42])
        ann = try service.token(sub: "ann", role: "viewer")
        bob = try service.token(sub: "bob", role: "viewer")
        try api.publish(streamId: 42, token: streamer, sourceLocation: sourceLocation)
    }
}

extension APIClient {
    /// PUTs the clip and the thumbnail to the URLs `issued` gave them, expecting 200 for each.
    func putBoth(
        _ issued: StreamPreviewPostResponse, movie: [UInt8], thumbnail: [UInt8],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let moviePut = try put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie)
        #expect(moviePut.status == 200, "movie PUT: \(moviePut.text)", sourceLocation: sourceLocation)
        let thumbnailPut = try put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail)
        #expect(thumbnailPut.status == 200, "thumbnail PUT: \(thumbnailPut.text)", sourceLocation: sourceLocation)
    }
}
