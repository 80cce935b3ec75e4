extension CORSPolicy {
    /// Why a configured origin list was refused, naming the item.
    public struct ConfigError: Error, Sendable, Equatable {
        public let message: String
    }

    /// A comma-separated list of exact origins (`https://app.example`, `http://127.0.0.1:8000`)
    /// and `*`; nil for an empty list (no CORS at all). Origins are compared byte for byte with
    /// the request's `Origin`, so each is kept as browsers serialize it (RFC 6454 §6.1): scheme
    /// and host in lower case, the scheme's default port left out. A path, query, user info or
    /// anything but http and https is refused, as is `null` (sandboxed and `file:` pages).
    public static func parse(_ text: String) -> Result<CORSPolicy?, ConfigError> {
        var origins = Set<String>()
        var anyOrigin = false
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpacesAndTabs() }
        if items == [""] { return .success(nil) }
        for item in items {
            if item == "*" {
                anyOrigin = true
            } else if let origin = serializedOrigin(item) {
                origins.insert(origin)
            } else {
                return .failure(
                    ConfigError(
                        message:
                            "'\(item)' is not an origin: use scheme://host[:port] with http or https and nothing after, or *"
                    ))
            }
        }
        return .success(CORSPolicy(origins: origins, anyOriginReads: anyOrigin))
    }

    /// The origin of an absolute http(s) URL (`serializedOrigin` of its scheme and authority,
    /// so a default port is left out): what a Content-Security-Policy names to allow the URL;
    /// nil for anything else (a user name, another scheme, a malformed host).
    public static func origin(ofURL url: String) -> String? {
        guard let separator = url.range(of: "://") else { return nil }
        let authority = url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return serializedOrigin(String(url[..<separator.upperBound] + authority))
    }

    /// `scheme://host[:port]` as a browser's `Origin` field writes it, or nil when `text` is not
    /// one. Hosts are ASCII (an internationalized name is given in its `xn--` form, as browsers
    /// send it); an IPv6 literal keeps its brackets.
    public static func serializedOrigin(_ text: String) -> String? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        let authority = text[separator.upperBound...]
        let host: Substring
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = portNumber(rest.dropFirst())
                guard port != nil else { return nil }
            }
            let inside = host.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                port = portNumber(authority[authority.index(after: colon)...])
                guard port != nil else { return nil }
            } else {
                host = authority
            }
            guard !host.isEmpty,
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
            else { return nil }
        }
        let origin = scheme + "://" + host.lowercased()
        guard let port, port != defaultPort else { return origin }
        return origin + ":" + String(port)
    }

    /// A port of 1 to 5 decimal digits from 1 to 65535.
    private static func portNumber(_ text: Substring) -> Int? {
        guard (1...5).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text),
            (1...65535).contains(port)
        else { return nil }
        return port
    }
}
