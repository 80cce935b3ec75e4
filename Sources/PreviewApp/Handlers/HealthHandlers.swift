import PreviewCore

/// `GET /healthz` (the process answers) and `GET /readyz` (it is not draining, and Redis
/// answers too).
struct HealthHandlers: Sendable {
    let context: AppContext

    func health() -> HTTPResponse { status("ok", 200) }

    /// 503 while draining, or when Redis does not answer. (The object store is not probed here:
    /// /readyz runs on the HTTP threads, which must never wait on a store.)
    func ready() -> HTTPResponse {
        if context.lifecycle.isDraining { return notReady("draining") }
        do {
            try context.store.ping()
        } catch {
            Log.warn("not_ready", ["reason": "\(error)"])
            return notReady("redis unavailable")
        }
        return status("ready", 200)
    }

    private func notReady(_ text: String) -> HTTPResponse {
        var response = status(text, 503)
        response.headers.add("Retry-After", "1")
        return response
    }

    private func status(_ text: String, _ code: Int) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: code, headers: headers, body: .bytes(Array("{\"status\":\"\(text)\"}\n".utf8)))
    }
}
