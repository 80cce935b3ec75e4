import PreviewCore

/// `GET /healthz` (the process answers) and `GET /readyz` (and Redis answers too).
struct HealthHandlers: Sendable {
    let context: AppContext

    func health() -> HTTPResponse { status("ok", 200) }

    func ready() -> HTTPResponse {
        do {
            try context.store.ping()
            return status("ready", 200)
        } catch {
            Log.warn("not_ready", ["reason": "\(error)"])
            var response = status("redis unavailable", 503)
            response.headers.add("Retry-After", "1")
            return response
        }
    }

    private func status(_ text: String, _ code: Int) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: code, headers: headers, body: .bytes(Array("{\"status\":\"\(text)\"}\n".utf8)))
    }
}
