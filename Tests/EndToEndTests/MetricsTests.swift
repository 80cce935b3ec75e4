import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `GET /metrics` read by the official Prometheus parser after real traffic, request IDs, the
/// request log line, and `--metrics-listen`.
@Suite struct MetricsTests {
    /// Requests sent through it are counted by route template, method and status, as the server
    /// should count them.
    final class Traffic {
        let api: APIClient
        private(set) var sent: [String: Int] = [:]

        init(_ api: APIClient) { self.api = api }

        @discardableResult
        func send(
            _ route: String, _ method: String, _ target: String, headers: [(String, String)] = [],
            body: [UInt8]? = nil, token: String? = nil
        ) throws -> Reply {
            let reply = try api.send(method, target, headers: headers, body: body, token: token)
            sent[Self.key(route, method, reply.status), default: 0] += 1
            return reply
        }

        static func key(_ route: String, _ method: String, _ status: Int) -> String { "\(route) \(method) \(status)" }

        /// Upload URLs, both PUTs and the commit, each expected to succeed; returns the issued upload.
        @discardableResult
        func publish(streamId: Int64, token: String, commit: Bool = true) throws -> StreamPreviewPostResponse {
            let movie = TestMedia.mp4()
            let thumbnail = TestMedia.jpeg()
            let post = try send(
                "/api/preview/post", "POST", "/api/preview/post", headers: [("Content-Type", "application/json")],
                body: StreamPreviewPostRequest(
                    streamId: streamId, movieBytes: Int64(movie.count), thumbnailBytes: Int64(thumbnail.count),
                    movieContentType: "video/mp4", thumbnailContentType: "image/jpeg"
                ).jsonBytes(), token: token)
            try #require(post.status == 200, "post: \(post.text)")
            let issued = try post.json(StreamPreviewPostResponse.self)
            guard commit else { return issued }
            for (url, headers, bytes) in [
                (issued.movieBodyUrl, issued.movieHeaders, movie),
                (issued.movieThumbnailBodyUrl, issued.thumbnailHeaders, thumbnail),
            ] {
                let put = try send(
                    "/objects/{key}", "PUT", url,
                    headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    body: bytes)
                try #require(put.status == 200, "PUT: \(put.text)")
            }
            let committed = try send(
                "/api/preview/commit", "POST", "/api/preview/commit", headers: [("Content-Type", "application/json")],
                body: StreamPreviewCommitRequest(streamId: streamId, uploadId: issued.uploadId).jsonBytes(),
                token: token)
            try #require(committed.status == 200, "commit: \(committed.text)")
            return issued
        }
    }

    @Test func aScrapeAfterRealTrafficParsesWithTheOfficialClientAndCountsWhatWasSent() throws {
        // Grace 0: the replaced clip of stream 42 is garbage at once, for the sweeper (every second) to delete.
        let service = try ServiceProcess(arguments: ["--sweep-interval", "1", "--grace", "0", "--metrics-refresh", "1"])
        let api = try APIClient(service)
        let traffic = Traffic(api)
        let streamer = try service.token(sub: "sam", role: "streamer", streams: [42, 43])
        let viewer = try service.token(sub: "ann", role: "viewer")

        try traffic.publish(streamId: 42, token: streamer)
        try traffic.publish(streamId: 42, token: streamer)
        try traffic.publish(streamId: 43, token: streamer, commit: false)
        for _ in 0..<3 { try traffic.send("/api/feed", "GET", "/api/feed", token: viewer) }
        try traffic.send("/api/streams/{streamId}/like", "POST", "/api/streams/42/like", token: viewer)
        try traffic.send("/api/streams/{streamId}/seen", "POST", "/api/streams/42/seen", token: viewer)
        try traffic.send("/api/streams/{streamId}/like", "POST", "/api/streams/42/like")  // no token: 401
        try traffic.send("other", "GET", "/no/such/route")
        try traffic.send("other", "POST", "/api/streams/not-a-number/like", token: viewer)
        try traffic.send("/healthz", "GET", "/healthz")

        // The sweeper deletes the replaced clip and thumbnail of stream 42.
        var text = ""
        let swept = eventually(within: 30) {
            text = (try? api.send("GET", "/metrics").text) ?? ""
            // The Redis gauges are refreshed every second in the background. A render reads the
            // store's figures before the sweeper's, so one made between the sweeper's two deletes
            // can show the second in the sweeper's count and not yet in the store's: wait for both.
            return text.contains("streampreview_sweeper_objects_deleted_total 2")
                && text.contains("streampreview_storage_call_duration_seconds_count{operation=\"delete\"} 2\n")
                && text.contains("\nstreampreview_pending_uploads 1\n")
        }
        #expect(swept, "the sweeper did not delete the replaced objects:\n\(text)")
        let scrape = try PrometheusScrape.parse(text)

        let types: [String: String] = [
            "streampreview_build_info": "gauge", "streampreview_http_requests": "counter",
            "streampreview_http_request_duration_seconds": "histogram", "streampreview_open_connections": "gauge",
            "streampreview_redis_call_duration_seconds": "histogram", "streampreview_redis_errors": "counter",
            "streampreview_storage_call_duration_seconds": "histogram", "streampreview_storage_errors": "counter",
            "streampreview_sweeper_runs": "counter", "streampreview_sweeper_previews_removed": "counter",
            "streampreview_sweeper_objects_deleted": "counter", "streampreview_sweeper_delete_failures": "counter",
            "streampreview_sweeper_lease_held": "gauge", "streampreview_sweeper_queued_streams": "gauge",
            "streampreview_sweeper_due_streams": "gauge", "streampreview_live_streams": "gauge",
            "streampreview_pending_uploads": "gauge", "streampreview_redis_gauges_age_seconds": "gauge",
        ]
        for (name, type) in types {
            #expect(scrape.family(name)?.type == type, "\(name)")
        }

        // Every route, method and status as sent; /metrics itself aside (the polls count too).
        var counted: [String: Int] = [:]
        for sample in scrape.samples("streampreview_http_requests_total") where sample.labels["route"] != "/metrics" {
            let key = Traffic.key(
                sample.labels["route"] ?? "", sample.labels["method"] ?? "", Int(sample.labels["status"] ?? "") ?? 0)
            counted[key] = Int(sample.value ?? -1)
        }
        #expect(counted == traffic.sent)
        #expect(traffic.sent[Traffic.key("/api/feed", "GET", 200)] == 3)
        #expect(traffic.sent[Traffic.key("other", "POST", 400)] == 1)
        let feedCount = scrape.value(
            "streampreview_http_request_duration_seconds_count", ["route": "/api/feed", "method": "GET"])
        #expect(feedCount == 3)
        let routes = Set(scrape.families.flatMap(\.samples).compactMap { $0.labels["route"] })
        #expect(routes.allSatisfy { !$0.contains("42") && !$0.contains("not-a-number") }, "\(routes)")

        #expect(scrape.value("streampreview_build_info", ["version": "0.1.0"]) == 1)
        #expect(scrape.value("streampreview_live_streams") == 1)
        #expect(scrape.value("streampreview_pending_uploads") == 1)
        #expect(scrape.value("streampreview_sweeper_objects_deleted_total") == 2)
        #expect(scrape.value("streampreview_sweeper_delete_failures_total") == 0)
        #expect((scrape.value("streampreview_sweeper_runs_total", ["stop": "drained"]) ?? 0) >= 1)
        #expect(scrape.value("streampreview_sweeper_lease_held") == 1)
        #expect((scrape.value("streampreview_open_connections") ?? 0) >= 1)
        // Commit inspects each object in the store; the sweeper deletes two.
        #expect(
            (scrape.value("streampreview_storage_call_duration_seconds_count", ["operation": "head"]) ?? 0) >= 4)
        #expect(scrape.value("streampreview_storage_call_duration_seconds_count", ["operation": "delete"]) == 2)
        #expect((scrape.value("streampreview_redis_call_duration_seconds_count") ?? 0) > 0)
        #expect(scrape.value("streampreview_redis_errors_total", ["kind": "connection"]) == 0)
    }

    @Test func aWellFormedClientRequestIdIsKeptInTheHeaderTheErrorBodyAndTheLogLine() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let reply = try api.send("POST", "/api/streams/42/like", headers: [("X-Request-Id", "client-Req_1.2")])
        expectError(reply, status: 401, code: "unauthenticated")
        #expect(reply.headers["X-Request-Id"] == "client-Req_1.2")
        let logged = eventually {
            let log = (try? String(contentsOfFile: service.stderrPath, encoding: .utf8)) ?? ""
            return log.split(separator: "\n").contains { line in
                line.contains(
                    "event=request request_id=client-Req_1.2 method=POST route=/api/streams/{streamId}/like "
                        + "path=/api/streams/42/like ")
                    && line.contains(" status=401 ms=") && line.contains(" bytes=")
            }
        }
        #expect(logged, "no request line for client-Req_1.2 in \(service.stderrPath)")
    }

    @Test func aMalformedClientRequestIdIsReplacedByAFreshOne() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let sent = "not ok/" + String(repeating: "x", count: 70)
        let reply = try api.send("POST", "/api/streams/42/like", headers: [("X-Request-Id", sent)])
        expectError(reply, status: 401, code: "unauthenticated")
        let id = try #require(reply.headers["X-Request-Id"])
        #expect(id != sent)
        #expect(id.count == 16 && id.allSatisfy(\.isHexDigit), "\(id)")
    }

    @Test func withMetricsListenTheMainPortAnswers404AndTheOtherPortServesMetrics() throws {
        let service = try ServiceProcess(arguments: ["--metrics-listen", "127.0.0.1:0"])
        let api = try APIClient(service)
        #expect(try api.send("GET", "/metrics").status == 404)
        let output = try String(contentsOfFile: service.stdoutPath, encoding: .utf8)
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("metrics on http://") })
        let url = String(line.dropFirst("metrics on ".count))
        let scrape = try api.send("GET", url)
        #expect(scrape.status == 200)
        #expect(scrape.headers["Content-Type"] == PrometheusText.contentType)
        let parsed = try PrometheusScrape.parse(scrape.text)
        // The main port's answer to /metrics is counted as such.
        #expect(parsed.value("streampreview_http_requests_total", ["route": "/metrics", "status": "404"]) == 1)
    }
}
