import PreviewCore
import Testing

@Suite struct MetricsTextTests {
    @Test func labelValuesEscapeBackslashQuoteAndLineFeed() {
        #expect(PrometheusText.escapedLabelValue(#"a\b"c"# + "\nd") == #"a\\b\"c\nd"#)
        #expect(PrometheusText.escapedLabelValue("/api/feed") == "/api/feed")
    }

    @Test func aCounterFamilyHasHelpTypeAndLabelledSamples() {
        var text = PrometheusText()
        text.family("x_total", .counter, help: "Things\ncounted.")
        text.sample("x_total", labels: [("route", "a\"b")], UInt64(3))
        #expect(text.text == "# HELP x_total Things\\ncounted.\n# TYPE x_total counter\nx_total{route=\"a\\\"b\"} 3\n")
    }

    @Test func aHistogramRendersCumulativeBucketsSumAndCount() {
        let histogram = LatencyHistogram()
        histogram.observe(nanoseconds: 50_000)  // 0.05 ms: first bucket
        histogram.observe(nanoseconds: 3_000_000)  // 3 ms: le 0.005
        histogram.observe(nanoseconds: 20_000_000_000)  // 20 s: +Inf only
        var text = PrometheusText()
        text.histogram("d_seconds", labels: [("route", "/r")], histogram)
        let lines = text.text.split(separator: "\n").map(String.init)
        #expect(lines.first == #"d_seconds_bucket{route="/r",le="0.0001"} 1"#)
        #expect(lines.contains(#"d_seconds_bucket{route="/r",le="0.0025"} 1"#))
        #expect(lines.contains(#"d_seconds_bucket{route="/r",le="0.005"} 2"#))
        #expect(lines.contains(#"d_seconds_bucket{route="/r",le="10"} 2"#))
        #expect(lines.contains(#"d_seconds_bucket{route="/r",le="+Inf"} 3"#))
        #expect(lines.contains(#"d_seconds_sum{route="/r"} 20.00305"#))
        #expect(lines.last == #"d_seconds_count{route="/r"} 3"#)
    }

    @Test func requestsAreCountedByRouteTemplateMethodAndStatusNeverByStreamId() throws {
        let metrics = HTTPMetrics()
        let like = try Route.parse(method: "POST", path: "/api/streams/42/like").get()
        let unlike = try Route.parse(method: "DELETE", path: "/api/streams/42/like").get()
        metrics.record(RouteLabel(like), status: 200, nanoseconds: 1000)
        metrics.record(RouteLabel(like), status: 200, nanoseconds: 1000)
        metrics.record(RouteLabel(unlike), status: 404, nanoseconds: 1000)
        metrics.record(.other(method: "PATCH"), status: 405, nanoseconds: 1000)
        var text = PrometheusText()
        metrics.render(into: &text)
        let lines = Set(text.text.split(separator: "\n").map(String.init))
        #expect(
            lines.contains(
                #"streampreview_http_requests_total{route="/api/streams/{streamId}/like",method="POST",status="200"} 2"#
            ))
        #expect(
            lines.contains(
                #"streampreview_http_requests_total{route="/api/streams/{streamId}/like",method="DELETE",status="404"} 1"#
            ))
        #expect(lines.contains(#"streampreview_http_requests_total{route="other",method="other",status="405"} 1"#))
        #expect(!text.text.contains("42"))
    }
}

@Suite struct RequestIDTests {
    @Test func aClientIdOfUpTo64SafeCharactersIsKept() {
        #expect(RequestID.wellFormed("abc-DEF_0.9") == "abc-DEF_0.9")
        #expect(RequestID.wellFormed(String(repeating: "a", count: 64)) != nil)
    }

    @Test func anEmptyLongOrUnsafeClientIdIsRefused() {
        for bad in ["", String(repeating: "a", count: 65), "a b", "a\"b", "a\nb", "é", "a=b", "a/b"] {
            #expect(RequestID.wellFormed(bad) == nil, "\(bad)")
        }
        #expect(RequestID.wellFormed(nil) == nil)
    }

    @Test func freshIdsAre16HexDigitsAndNeverRepeatWithinAProcess() {
        let source = RequestIDSource(start: .max - 500)  // wraps around on the way
        let ids = (0..<1_000).map { _ in source.next() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { id in id.utf8.count == 16 && RequestID.wellFormed(id) == id })
        #expect(ids.allSatisfy { id in id.utf8.allSatisfy { Hex.digitValue($0) != nil && !(65...70).contains($0) } })
        #expect(RequestIDSource(start: 7).next() != RequestIDSource(start: 8).next())
    }
}
