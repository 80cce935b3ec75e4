import PreviewCore

/// `GET /metrics`: every metric of the process in the Prometheus text format, from memory. What
/// lives in Redis (pending uploads, the sweeper's backlog) is read in the background
/// (`RedisGauges`) and the live-stream count comes from the feed snapshot already held, so a
/// scrape costs no Redis call. The page is rendered at most once per `--metrics-max-age-ms`
/// (`RenderedPage`, a second by default): rendering every family costs about a millisecond, so a
/// flood of scrapes would otherwise cost the process far more than the requests it serves; a
/// scrape within the period gets the same bytes. Who may scrape is `MetricsAccess`'s decision. On
/// the API's port a scrape is answered on its I/O thread like `/healthz` (a render holds one for
/// about a millisecond, once a period); a dedicated listener answers on its own worker.
package struct MetricsHandler: Sendable {
    let context: AppContext
    let access: MetricsAccess
    let page: RenderedPage

    package init(context: AppContext, dedicatedListener: Bool) {
        self.context = context
        page = RenderedPage(maxAgeMilliseconds: context.metricsMaxAgeMilliseconds)
        access = MetricsAccess(token: context.metricsToken, dedicatedListener: dedicatedListener)
    }

    func metrics(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        if let refusal = access.refusal(request, crypto: context.crypto) { throw refusal }
        var headers = HTTPHeaders()
        headers.add("Content-Type", PrometheusText.contentType)
        headers.add("Cache-Control", "no-store")
        let bytes = page.bytes(nowMilliseconds: context.nowMilliseconds()) { Array(render().utf8) }
        return HTTPResponse(status: 200, headers: headers, body: .bytes(bytes))
    }

    func render() -> String {
        let metrics = context.metrics
        let nowMilliseconds = context.nowMilliseconds()
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
        metrics.webhooks.render(into: &text)
        context.authenticator.keyRing.render(into: &text)
        metrics.rateLimits.render(into: &text)
        metrics.commitHook.render(into: &text)
        metrics.figures.render(into: &text)
        if let snapshot = context.feedCache.held {
            text.family("streampreview_live_streams", .gauge, help: "Streams in the feed snapshot this process serves.")
            text.sample("streampreview_live_streams", Int64(snapshot.count))
        }
        text.family(
            "streampreview_feed_live_list_reads_total", .counter,
            help:
                "Reads of the whole live list by the feed snapshot cache (one per second of changes and per URL window at most)."
        )
        text.sample("streampreview_feed_live_list_reads_total", Int64(context.feedCache.liveListReads))
        metrics.redisGauges.render(into: &text, nowMilliseconds: nowMilliseconds)
        if let events = context.feedEvents { events.render(into: &text, store: context.store) }
        return text.text
    }
}

/// The responder of the separate metrics listener (`--metrics-listen`): `GET /metrics` and
/// nothing else.
package struct MetricsResponder: HTTPResponder {
    let handler: MetricsHandler

    package init(handler: MetricsHandler) { self.handler = handler }

    func admit(_ head: HTTPRequestHead) -> RequestAdmission {
        .buffer(limit: 0, on: .worker)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.path == "/metrics" else { return plain(404, "not found\n") }
        guard request.method == "GET" else { return plain(405, "method not allowed; use GET\n") }
        do {
            return try handler.metrics(request)
        } catch {
            var response = plain(error.code.status, error.message + "\n")
            if error.code == .unauthenticated { response.headers.add("WWW-Authenticate", "Bearer") }
            return response
        }
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
