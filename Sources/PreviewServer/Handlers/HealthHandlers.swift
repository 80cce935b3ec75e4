import PreviewCore

/// `GET /healthz` (the process answers) and `GET /readyz` (it is not draining, the identity
/// provider's keys arrived when `--jwks-url` is set, Redis answers,
/// a remote object store answered its last background probe, and the local store's disk keeps
/// its free-space floor).
struct HealthHandlers: Sendable {
    let context: AppContext

    func health() -> HTTPResponse { status("ok", 200) }

    /// 503 while draining, when Redis does not answer, or when the object store's background
    /// probe failed or has waited too long (read, never waited for: this runs on the HTTP threads).
    func ready() -> HTTPResponse {
        if context.lifecycle.isDraining { return notReady("draining") }
        if context.authenticator.keyRing.waitsForKeys { return notReady("identity provider keys not loaded yet") }
        do {
            try context.store.ping()
        } catch {
            Log.warn("not_ready", ["reason": "\(error)"])
            return notReady("redis unavailable")
        }
        if let failure = context.storageReadiness?.failure {
            Log.warn("not_ready", ["reason": "object store: \(failure)"])
            return notReady("object store unavailable")
        }
        if let shortfall = context.diskFloor?.shortfall() {
            Log.warn("not_ready", ["reason": "local store disk: \(shortfall)"])
            return notReady("local store disk below its free-space floor (--min-free-disk-bytes)")
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
