/// A storage endpoint base URL, `http(s)://authority[/path]`, split the way the SDKs read
/// it (Python `urlparse`: the authority is kept exactly as written, port and case included).
public struct StorageEndpointURL: Sendable, Equatable {
    public var scheme: String
    /// `host[:port]` as written (`[v6]:port` for IPv6 literals).
    public var authority: String
    /// The authority as clients send it in `Host`: as written, without the scheme's default
    /// port (`https://h:443` gives `h`, `http://h:8080` keeps `h:8080`). The one rule both
    /// presigners sign `host` by (S3 lower-cases it as well, as botocore does).
    public var requestAuthority: String
    /// The host without port, lower-cased, brackets kept for IPv6.
    public var hostName: String
    /// The path after the authority without a trailing `/` ("" when none).
    public var path: String

    /// Nil unless `http` or `https` with a non-empty authority and no query, fragment or
    /// user info.
    public init?(_ text: String) {
        let scheme: String
        if text.hasPrefix("https://") {
            scheme = "https"
        } else if text.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = text.dropFirst(scheme.count + 3)
        guard !rest.contains("?"), !rest.contains("#") else { return nil }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        var path = String(rest[slash...])
        while path.hasSuffix("/") { path.removeLast() }
        guard !authority.isEmpty, !authority.contains("@"),
            let requestAuthority = SigV4Canonical.hostHeader(authority, scheme: scheme)
        else { return nil }
        var hostName = authority
        if authority.hasPrefix("[") {
            if let close = authority.firstIndex(of: "]") { hostName = String(authority[...close]) }
        } else if let colon = authority.firstIndex(of: ":") {
            hostName = String(authority[..<colon])
        }
        self.scheme = scheme
        self.authority = authority
        self.requestAuthority = requestAuthority
        self.hostName = hostName.lowercased()
        self.path = path
    }

    /// True for an IPv4 dotted quad or a bracketed IPv6 literal (botocore's `isIp`, which
    /// rules out virtual-hosted addressing).
    public var isIPAddress: Bool {
        if hostName.hasPrefix("[") { return true }
        let parts = hostName.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { (1...3).contains($0.utf8.count) && $0.utf8.allSatisfy(Self.isDigit) }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
