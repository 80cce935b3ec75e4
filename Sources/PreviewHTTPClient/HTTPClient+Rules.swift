// Pure rules of the client: request validation, proxy bypass list, header text handling.
import PreviewCore

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPClient {
    /// Hosts that never go through a proxy, whatever the environment says: a proxy for
    /// loopback would break local fakes and health checks in a way nobody expects.
    static let loopbackHosts = "localhost,127.0.0.0/8,::1"

    /// The value for CURLOPT_NOPROXY. Setting the option makes curl ignore `no_proxy`, so the
    /// operator's list is carried over and loopback is added to it (CIDR needs curl 7.86+).
    static func noProxyList(environmentValue: String?) -> String {
        let operatorList = (environmentValue ?? "").trimmingSpacesAndTabs()
        if operatorList == "*" { return "*" }
        return operatorList.isEmpty ? loopbackHosts : operatorList + "," + loopbackHosts
    }

    /// `no_proxy` wins over `NO_PROXY`, as in curl.
    static func environmentNoProxy() -> String? {
        for name in ["no_proxy", "NO_PROXY"] {
            if let value = getenv(name) { return String(cString: value) }
        }
        return nil
    }

    /// Rejects what curl would send corrupted or not at all: CR/LF/NUL smuggled into the request
    /// line or a header, a schemeless URL (curl would guess one), a non-positive timeout.
    static func validate(_ request: HTTPClientRequest) throws {
        let lowerURL = request.url.lowercased()
        guard lowerURL.hasPrefix("http://") || lowerURL.hasPrefix("https://") else {
            throw HTTPClientError(kind: .invalidURL, message: "not an absolute http(s) URL: \(request.url)")
        }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw HTTPClientError(kind: .invalidURL, message: "URL contains a space or control character")
        }
        guard HTTPToken.isToken(request.method) else {
            throw HTTPClientError(kind: .invalidRequest, message: "invalid method \(request.method.debugDescription)")
        }
        for field in request.headers {
            guard HTTPToken.isToken(field.name) else {
                throw HTTPClientError(
                    kind: .invalidRequest, message: "invalid header name \(field.name.debugDescription)")
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPClientError(
                    kind: .invalidRequest, message: "header \(field.name) has CR, LF or NUL in its value")
            }
        }
        guard request.timeoutSeconds.isFinite, request.timeoutSeconds > 0 else {
            throw HTTPClientError(
                kind: .invalidRequest, message: "timeout must be positive, got \(request.timeoutSeconds)")
        }
    }

    /// Header bytes as UTF-8 when valid, else as ISO-8859-1 (one scalar per byte, nothing lost).
    static func decodeHeaderBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
