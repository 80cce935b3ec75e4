import PreviewCore

/// Who may read `GET /metrics` on a listener. A scrape shows traffic, error and backlog figures
/// an anonymous caller has no business with, so on the public port it is answered only to a
/// client on this machine that did not come through a proxy, or to the holder of the metrics
/// token; a dedicated metrics listener (`--metrics-listen`) is reachable only where the operator
/// bound it, so it answers anyone who reaches it unless a token is configured.
struct MetricsAccess: Sendable {
    /// The bearer token of `--metrics-token-file`; nil: none configured.
    var token: [UInt8]?
    /// True on a dedicated metrics listener; false on the API's port.
    var dedicatedListener: Bool

    init(token: [UInt8]? = nil, dedicatedListener: Bool) {
        self.token = token
        self.dedicatedListener = dedicatedListener
    }

    /// nil when the request may read the metrics, else the error to answer with.
    func refusal(_ request: HTTPRequest, crypto: any CryptoPrimitives) -> APIError? {
        if let token {
            let presented = request.headers["Authorization"].flatMap(Authenticator.bearerToken)
            if let presented, crypto.constantTimeEqual(Array(presented.utf8), token) { return nil }
            // With a token configured, a local client still may scrape without it on the API's port,
            // but a wrong token is never let through.
            if presented == nil, !dedicatedListener, Self.isLocalClient(request) { return nil }
            return APIError(.unauthenticated, "metrics need the bearer token of --metrics-token-file")
        }
        if dedicatedListener || Self.isLocalClient(request) { return nil }
        return APIError(
            .forbidden,
            "metrics are served to clients on this machine, on --metrics-listen, or with --metrics-token-file's token")
    }

    /// A loopback peer that does not say it forwards someone else's request (a reverse proxy on
    /// the same machine connects from loopback for every client).
    static func isLocalClient(_ request: HTTPRequest) -> Bool {
        guard request.headers["X-Forwarded-For"] == nil, request.headers["Forwarded"] == nil else { return false }
        return isLoopback(request.remoteAddress)
    }

    /// `127.0.0.0/8`, `::1`, or an IPv4-mapped loopback (`::ffff:127.x.y.z`), as the server
    /// writes a peer address (no port, no brackets).
    static func isLoopback(_ address: String) -> Bool {
        var text = Substring(address)
        if text.hasPrefix("::ffff:") { text = text.dropFirst("::ffff:".count) }
        if text == "::1" { return true }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
