import PreviewCore
import PreviewRedis
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// With a public/CDN base URL the feed hands out plain URLs on it, and the preview hash keeps
/// them (the original design's "GET URLs in Redis").
@Suite struct PublicBaseURLTests {
    @Test func plainURLsOnThePublicBaseAreStoredAndServed() throws {
        let app = try AppHarness(publicBaseURL: "https://cdn.example.com/media")
        let item = try app.publish(stream: 12)
        #expect(item.movieUrl.hasPrefix("https://cdn.example.com/media/previews/12/"))
        #expect(item.movieUrl.hasSuffix("/movie.mp4"))
        #expect(!item.movieUrl.contains("X-Amz-Signature"))
        #expect(try app.feed().first?.thumbnailUrl == item.thumbnailUrl)

        let hash = try app.redis.connection().command(["HGETALL", RedisKeys(prefix: "t").preview(12)])
        let fields = (hash.array ?? []).compactMap(\.string)
        #expect(fields.contains("movieUrl") && fields.contains(item.movieUrl))
        #expect(fields.contains("thumbnailUrl") && fields.contains(item.thumbnailUrl))

        // The local store serves such objects without a signature.
        let path = "/objects/" + item.movieUrl.components(separatedBy: "/media/")[1]
        let get = app.send("GET", path)
        #expect(get.status == 200)
    }

    @Test func withoutABaseURLsAreSignedOnTheGridAndIdenticalWithinAWindow() throws {
        let app = try AppHarness()
        try app.publish(stream: 3)
        let first = try app.feed()
        app.advance(seconds: 5)
        let second = try app.feed()
        #expect(first.first?.movieUrl == second.first?.movieUrl)
        #expect(first.first?.movieUrl.contains("X-Amz-Expires=3600") == true)
        let hash = try app.redis.connection().command(["HGETALL", RedisKeys(prefix: "t").preview(3)])
        #expect(!(hash.array ?? []).compactMap(\.string).contains("movieUrl"))
    }
}
