import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

/// Figures per preview version, end to end: viewers' seen marks, plays, likes, shares and
/// tracking link follows counted against the live version, read back by the stream's owner, and
/// the replaced version's final figures in its webhook.
@Suite("Figures: tracking links and per-version stats", .serialized)
struct PreviewFiguresTests {
    static let browser = [
        ("Accept", "text/html,application/xhtml+xml"),
        ("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"),
    ]
    static let previewer = [
        ("Accept", "text/html"),
        ("User-Agent", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"),
    ]

    @Test(
        "50 viewers shown a preview, 20 play it, 5 open it through the tracking link (2 twice), a link previewer fetches it, the preview is replaced: the stats route and the replaced version's webhook report exactly that"
    )
    func story() throws {
        let secret = try WebhookDeliveryTests.Secret()
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { _, _ in .accept }
        defer { sink.stop() }
        let service = try ServiceProcess(
            arguments: WebhookDeliveryTests.webhookArguments(sink, secret))
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        try api.publish(streamId: 42, token: sam)
        let watch = "https://watch.example.com/live/42?from=preview"
        let set = try api.send(
            "PUT", "/api/streams/42/watch", headers: [("Content-Type", "application/json")],
            body: Array(#"{"watchUrl":"\#(watch)"}"#.utf8), token: sam)
        #expect(set.status == 204, "\(set.text)")

        let viewers = try (0..<50).map { try service.token(sub: "viewer-\($0)", role: "viewer") }
        for viewer in viewers {
            #expect(try api.send("POST", "/api/streams/42/seen", token: viewer).status == 204)
        }
        for viewer in viewers.prefix(20) {
            #expect(try api.send("POST", "/api/streams/42/play", token: viewer).status == 204)
        }
        for (index, viewer) in viewers.prefix(5).enumerated() {
            for _ in 0..<(index < 2 ? 2 : 1) {
                let open = try api.send("GET", "/s/42", headers: Self.browser, token: viewer)
                #expect(open.status == 302)
                #expect(open.headers["Location"] == watch)
                #expect(open.headers["Cache-Control"] == "no-store")
            }
        }
        let preview = try api.send("GET", "/s/42", headers: Self.previewer)
        #expect(preview.status == 200)
        #expect(preview.text.contains("og:video"))
        // A like repeated by the same viewer changes nothing, so counts once.
        for viewer in [viewers[0], viewers[0], viewers[1], viewers[2]] {
            #expect(try api.send("POST", "/api/streams/42/like", token: viewer).status == 200)
        }
        #expect(try api.send("POST", "/api/streams/42/share", token: viewers[3]).status == 204)

        let live = try #require(try stats(api, token: sam).versions.first)
        let expected = PreviewFigures(
            previewVersion: 1, liveFrom: live.liveFrom, impressions: 70, plays: 20, likes: 3, opens: 7, shares: 1,
            distinctImpressions: 50, distinctOpens: 5)
        #expect(live == expected)
        #expect(live.openRate == 7.0 / 50.0)

        try api.publish(streamId: 42, token: sam)
        let after = try stats(api, token: sam)
        #expect(after.watchUrl == watch)
        #expect(after.versions.map(\.previewVersion) == [2, 1])
        #expect(after.versions[0].liveUntil == nil && after.versions[0].impressions == 0)
        let closed = after.versions[1]
        let liveUntil = try #require(closed.liveUntil)
        #expect(liveUntil >= live.liveFrom)
        var closedExpected = expected
        closedExpected.liveUntil = liveUntil
        #expect(closed == closedExpected)

        let replaced = try #require(try awaitEvent(sink, type: "preview.replaced"))
        let final = try #require(replaced.data.finalFigures)
        #expect(
            final
                == WebhookSink.Event.FinalFigures(
                    previewVersion: "1", liveFrom: String(live.liveFrom), liveUntil: String(liveUntil),
                    impressions: "70", plays: "20", likes: "3", opens: "7", shares: "1", distinctImpressions: "50",
                    distinctOpens: "5", openRate: 0.14))

        let metrics = try api.send("GET", "/metrics").text
        for line in [
            #"streampreview_figures_counted_total{kind="impressions"} 70"#,
            #"streampreview_figures_counted_total{kind="plays"} 20"#,
            #"streampreview_figures_counted_total{kind="opens"} 7"#,
            #"streampreview_figures_counted_total{kind="shares"} 1"#,
            "streampreview_tracking_link_previewers_total 1",
        ] {
            #expect(metrics.contains(line + "\n"), "\(line)")
        }
    }

    @Test("Only the stream's owner and admins read its figures: a viewer 403, another streamer 403, no token 401")
    func owners() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        try api.publish(streamId: 42, token: sam)
        expectError(
            try api.send("GET", "/api/streams/42/stats", token: try service.token(sub: "ann", role: "viewer")),
            status: 403, code: "forbidden")
        expectError(
            try api.send(
                "GET", "/api/streams/42/stats", token: try service.token(sub: "oli", role: "streamer", streams: [7])),
            status: 403, code: "forbidden", target: "streamId")
        expectError(try api.send("GET", "/api/streams/42/stats"), status: 401, code: "unauthenticated")
        let admin = try stats(api, token: try service.token(sub: "root", role: "admin"))
        #expect(admin.versions.map(\.previewVersion) == [1])
        let proto = try api.send(
            "GET", "/api/streams/42/stats", headers: [("Accept", "application/x-protobuf")], token: sam)
        #expect(proto.status == 200)
        #expect(try proto.protobuf(StreamStatsResponse.self) == (try stats(api, token: sam)))
    }

    @Test(
        "Watch URLs: https or a listed app scheme is stored, javascript:, a user part, plain http and overlong ones are 400 invalid_argument with nothing stored; without one a browser gets the page"
    )
    func watchURLs() throws {
        let service = try ServiceProcess(arguments: ["--watch-url-schemes", "myapp"])
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        try api.publish(streamId: 42, token: sam)
        let page = try api.send("GET", "/s/42", headers: Self.browser)
        #expect(page.status == 200)
        #expect(page.headers["Cache-Control"] == "no-store")
        func put(_ url: String) throws -> Reply {
            try api.send(
                "PUT", "/api/streams/42/watch", headers: [("Content-Type", "application/json")],
                body: Array(#"{"watchUrl":"\#(url)"}"#.utf8), token: sam)
        }
        for bad in [
            "javascript:alert(1)", "https://evil@watch.example.com/", "http://watch.example.com/", "https:///x",
            "https://watch.example.com/" + String(repeating: "a", count: 2048), "myapp", "data:text/html,hi",
        ] {
            expectError(try put(bad), status: 400, code: "invalid_argument", target: "watchUrl")
        }
        #expect(try api.send("GET", "/s/42", headers: Self.browser).status == 200, "nothing stored")
        #expect(try put("myapp://stream/42").status == 204)
        #expect(try api.send("GET", "/s/42", headers: Self.browser).headers["Location"] == "myapp://stream/42")
        // The upload request sets it too; an empty one leaves it.
        let issued = try api.requestUpload(
            StreamPreviewPostRequest(streamId: 42, watchUrl: "https://watch.example.com/42"), token: sam)
        #expect(issued.status == 200, "\(issued.text)")
        #expect(try stats(api, token: sam).watchUrl == "https://watch.example.com/42")
        let refused = try api.requestUpload(StreamPreviewPostRequest(streamId: 42, watchUrl: "ftp://x/"), token: sam)
        expectError(refused, status: 400, code: "invalid_argument", target: "watchUrl")
        #expect(try put("").status == 204)
        #expect(try stats(api, token: sam).watchUrl == "")
        let viewer = try service.token(sub: "ann", role: "viewer")
        expectError(
            try api.send(
                "PUT", "/api/streams/42/watch", headers: [("Content-Type", "application/json")],
                body: Array(#"{"watchUrl":""}"#.utf8), token: viewer), status: 403, code: "forbidden")
    }

    @Test(
        "A version's figures have no TTL while live and the retention once replaced or ended; --no-stats counts nothing and the stats route is 404"
    )
    func retention() throws {
        let service = try ServiceProcess(arguments: ["--stats-retention", "600"])
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let redis = RedisProbe(serveDataDirectory: service.dataDirectory)
        try api.publish(streamId: 42, token: sam)
        let hash = "sp:{s:42}:figures"
        let estimates = ["sp:{s:42}:figures:impressions", "sp:{s:42}:figures:opens"]
        for key in [hash] + estimates { #expect(try redis.integer(["TTL", key]) == -1, "\(key)") }
        let viewer = try service.token(sub: "ann", role: "viewer")
        #expect(try api.send("POST", "/api/streams/42/seen", token: viewer).status == 204)
        // Replaced: version 1 closed (its distinct viewers counted into the hash), version 2 live.
        try api.publish(streamId: 42, token: sam)
        #expect(try redis.integer(["TTL", hash]) == -1)
        #expect(try redis.strings(["HMGET", hash, "1.impressions", "1.distinctImpressions"]) == ["1", "1"])
        #expect(try redis.integer(["HEXISTS", hash, "2.liveFrom"]) == 1)
        #expect(try redis.integer(["HEXISTS", hash, "2.impressions"]) == 0)
        #expect(try redis.integer(["PFCOUNT", estimates[0]]) == 0)
        // Ended: nothing live, so the whole hash expires after the retention; the estimates are gone.
        #expect(try api.send("DELETE", "/api/preview/42", token: sam).status == 204)
        let ttl = try redis.integer(["TTL", hash])
        #expect(ttl > 590 && ttl <= 600, "\(ttl)")
        for key in estimates { #expect(try redis.integer(["EXISTS", key]) == 0, "\(key)") }

        let off = try ServiceProcess(arguments: ["--no-stats"])
        let offAPI = try APIClient(off)
        let owner = try off.token(sub: "sam", role: "streamer", streams: [42])
        try offAPI.publish(streamId: 42, token: owner)
        let offViewer = try off.token(sub: "ann", role: "viewer")
        #expect(try offAPI.send("POST", "/api/streams/42/seen", token: offViewer).status == 204)
        expectError(try offAPI.send("GET", "/api/streams/42/stats", token: owner), status: 404, code: "not_found")
        let offRedis = RedisProbe(serveDataDirectory: off.dataDirectory)
        #expect(try offRedis.strings(["KEYS", "sp:{s:42}:figures*"]) == [])
    }

    @Test("Plays, shares and opens of a stream without a live preview are 404 stream_not_live and count nothing")
    func notLive() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let ann = try service.token(sub: "ann", role: "viewer")
        for path in ["play", "share"] {
            expectError(
                try api.send("POST", "/api/streams/777/\(path)", token: ann), status: 404, code: "stream_not_live",
                target: "streamId")
        }
        expectError(
            try api.send("GET", "/s/777", headers: Self.browser), status: 404, code: "stream_not_live",
            target: "streamId")
    }

    private func stats(_ api: APIClient, token: String) throws -> StreamStatsResponse {
        let reply = try api.send("GET", "/api/streams/42/stats", token: token)
        try #require(reply.status == 200, "stats: \(reply.status) \(reply.text)")
        return try reply.json(StreamStatsResponse.self)
    }

    private func awaitEvent(_ sink: WebhookSink, type: String) throws -> WebhookSink.Event? {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let event = sink.events.first(where: { $0.type == type }) { return event }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}

extension PreviewFiguresTests {
    @Test(
        "Feed items carry the tracking link and a download link: the clip's bytes with Content-Disposition attachment and a file name, signed, so a changed disposition is refused"
    )
    func feedLinks() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let movie = TestMedia.mp4()
        try api.publish(streamId: 42, token: sam, movie: movie)
        let item = try #require(try api.feedItems().first)
        #expect(item.shareUrl == service.baseURL + "/s/42")
        let saved = try api.send("GET", item.downloadUrl)
        #expect(saved.status == 200)
        #expect(saved.body == movie)
        #expect(saved.headers["Content-Disposition"] == #"attachment; filename="stream-42-v1.mp4""#)
        let played = try api.send("GET", item.movieUrl)
        #expect(played.status == 200 && played.headers["Content-Disposition"] == nil)
        let tampered = item.downloadUrl.replacingOccurrences(of: "stream-42-v1.mp4", with: "evil.exe")
        #expect(tampered != item.downloadUrl)
        #expect(try api.send("GET", tampered).status == 403)
        let protobuf = try api.send("GET", "/api/feed", headers: [("Accept", "application/x-protobuf")])
        let decoded = try #require(try protobuf.protobuf(FeedResponse.self).items.first)
        #expect(decoded.shareUrl == item.shareUrl && decoded.downloadUrl == item.downloadUrl)
    }
}

extension PreviewFiguresTests {
    @Test(
        "--rank-by opens: seen previews follow their open rate with the prior (1 open of 1 view stays below 6 of 30), not their likes; unseen still lead"
    )
    func rankByOpens() throws {
        let service = try ServiceProcess(arguments: ["--rank-by", "opens", "--feed-max-age-ms", "100"])
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [201, 202, 203, 204])
        for stream: Int64 in [201, 202, 203] { try api.publish(streamId: stream, token: sam) }
        let vic = try service.token(sub: "vic", role: "viewer")
        for stream in [201, 202, 203] {
            #expect(try api.send("POST", "/api/streams/\(stream)/seen", token: vic).status == 204)
        }
        // 203 is the most liked; with nothing opened yet all score the prior, so likes decide.
        #expect(try api.send("POST", "/api/streams/203/like", token: vic).status == 200)
        #expect(try api.feedItems(token: vic).first?.streamId == 203)

        // 201: one viewer, one open. 202: 30 viewers play it, 6 open it. 203: 30 play, none opens.
        let viewers = try (0..<30).map { try service.token(sub: "viewer-\($0)", role: "viewer") }
        for (stream, opening) in [(201, 1), (202, 6), (203, 0)] {
            for (index, viewer) in viewers.prefix(stream == 201 ? 1 : 30).enumerated() {
                #expect(try api.send("POST", "/api/streams/\(stream)/play", token: viewer).status == 204)
                if index < opening {
                    // No watch URL: the share page, counted as an open all the same.
                    #expect(try api.send("GET", "/s/\(stream)", headers: Self.browser, token: viewer).status == 200)
                }
            }
        }
        // Rates with the prior: 202 8.5/80, 201 3.5/51, 203 2.5/80; read at a feed reload.
        let expected: [Int64] = [202, 201, 203]
        let deadline = ContinuousClock.now + .seconds(30)
        var order: [Int64] = []
        while ContinuousClock.now < deadline {
            order = try api.feedItems(token: vic).map(\.streamId)
            if order == expected { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(order == expected)
        // A new stream is unseen: first, whatever its score.
        try api.publish(streamId: 204, token: sam)
        #expect(try api.feedItems(token: vic).map(\.streamId) == [204] + expected)
    }
}
