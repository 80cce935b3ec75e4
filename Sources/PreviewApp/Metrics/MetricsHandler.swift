import PreviewCore

/// `GET /metrics`: every metric of the process in the Prometheus text format. What lives in
/// Redis (live streams, pending uploads, the sweeper's backlog) is read at scrape time, in a
/// few round trips; when Redis does not answer, those gauges are left out of that scrape and
/// the Redis error counters show why.
struct MetricsHandler: Sendable {
    let context: AppContext

    func metrics() -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", PrometheusText.contentType)
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: headers, body: .bytes(Array(render().utf8)))
    }

    func render() -> String {
        let metrics = context.metrics
        var text = PrometheusText()
        text.family("streampreview_build_info", .gauge, help: "Always 1; the labels say which build this is.")
        text.sample(
            "streampreview_build_info", labels: [("version", BuildInfo.version), ("swift", BuildInfo.swift)],
            Int64(1))
        metrics.http.render(into: &text)
        if let open = metrics.openConnections {
            text.family("streampreview_open_connections", .gauge, help: "Client connections open on this process.")
            text.sample("streampreview_open_connections", Int64(open))
        }
        context.store.pool.metrics.render(into: &text)
        metrics.storage.render(
            into: &text, latency: "streampreview_storage_call_duration_seconds",
            errors: "streampreview_storage_errors_total", label: "operation", subject: "object store")
        metrics.sweeper.render(into: &text)
        renderRedisGauges(into: &text)
        return text.text
    }

    private func renderRedisGauges(into text: inout PrometheusText) {
        let nowMilliseconds = context.nowMilliseconds()
        if let snapshot = try? context.feedCache.snapshot(nowMilliseconds: nowMilliseconds) {
            text.family("streampreview_live_streams", .gauge, help: "Streams in the feed snapshot this process serves.")
            text.sample("streampreview_live_streams", Int64(snapshot.count))
        }
        // An upload is pending at most this long after it was issued.
        let pendingFor = context.policy.uploadURLTTL + context.policy.commitWindow
        let now = nowMilliseconds / 1000
        if let pending = try? context.store.pendingUploadCount(now: now, touchedSince: now - pendingFor) {
            text.family(
                "streampreview_pending_uploads", .gauge,
                help: "Uploads issued and not committed whose commit deadline is not past (up to 10000 streams).")
            text.sample("streampreview_pending_uploads", pending)
        }
        if let backlog = try? context.store.sweepBacklog(now: now) {
            text.family("streampreview_sweeper_queued_streams", .gauge, help: "Streams in the sweeper's queue.")
            text.sample("streampreview_sweeper_queued_streams", backlog.queued)
            text.family(
                "streampreview_sweeper_due_streams", .gauge, help: "Streams in the sweeper's queue that are due now.")
            text.sample("streampreview_sweeper_due_streams", backlog.due)
        }
    }
}

/// The responder of the separate metrics listener (`--metrics-listen`): `GET /metrics` and
/// nothing else.
struct MetricsResponder: HTTPResponder {
    let handler: MetricsHandler

    func admit(_ head: HTTPRequestHead) -> RequestAdmission {
        .buffer(limit: 0, on: .connection)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        if request.path == "/metrics" {
            return request.method == "GET" ? handler.metrics() : plain(405, "method not allowed; use GET\n")
        }
        return plain(404, "not found\n")
    }

    func refuse(_ head: HTTPRequestHead, reason: HTTPRefusal) -> HTTPResponse {
        plain(400, "bad request\n")
    }

    private func plain(_ status: Int, _ text: String) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        if status == 405 { headers.add("Allow", "GET") }
        return HTTPResponse(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }
}
