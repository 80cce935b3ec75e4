import Dispatch
import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

/// A flood of scrapes costs the service no Redis call and does not stop the feed.
@Suite struct MetricsScrapeCostTests {
    @Test func scrapesInALoopWhileTheFeedIsReadSendNoRedisCommandAndTheFeedKeepsAnswering() throws {
        let redis = try RedisServerFixture()
        // One background refresh of the Redis gauges at start, then none during the test.
        let service = try ServiceProcess(arguments: [
            "--redis", "unix://" + redis.socketPath, "--metrics-refresh", "3600", "--metrics-max-age-ms", "1000",
        ])
        let api = try APIClient(service)
        let streams = (1...300).map(Int64.init)
        let streamer = try service.token(sub: "sam", role: "streamer", streams: streams)
        for id in streams {
            let post = try api.send(
                "POST", "/api/preview/post", headers: [("Content-Type", "application/json")],
                body: StreamPreviewPostRequest(
                    streamId: id, movieBytes: 1000, thumbnailBytes: 100, movieContentType: "video/mp4",
                    thumbnailContentType: "image/jpeg"
                ).jsonBytes(), token: streamer)
            try #require(post.status == 200, "post: \(post.text)")
        }
        let viewer = try service.token(sub: "ann", role: "viewer")
        let admin = try redis.connection()
        _ = try admin.command(["CONFIG", "RESETSTAT"])

        let scrapes = Mutex<[Int]>([])
        let feeds = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            guard let client = try? APIClient(service) else { return }
            for _ in 0..<50 {
                if worker == 0 {
                    let status = (try? client.send("GET", "/api/feed", token: viewer).status) ?? 0
                    feeds.withLock { $0.append(status) }
                } else {
                    let status = (try? client.send("GET", "/metrics").status) ?? 0
                    scrapes.withLock { $0.append(status) }
                }
            }
        }
        #expect(scrapes.withLock { $0 } == Array(repeating: 200, count: 150))
        #expect(feeds.withLock { $0 } == Array(repeating: 200, count: 50))
        let stats = try #require(admin.command(["INFO", "commandstats"]).string)
        let perStream = stats.split(separator: "\r\n").filter {
            $0.hasPrefix("cmdstat_zcount:") || $0.hasPrefix("cmdstat_zcard:")
        }
        #expect(perStream.isEmpty, "scrapes asked Redis: \(perStream)")
    }
}
