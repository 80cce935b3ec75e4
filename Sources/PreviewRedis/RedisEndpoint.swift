import PreviewCore

/// Where a Redis server is and how to log in to it: address, database (SELECT), and optional AUTH credentials.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    public enum Address: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case unix(path: String)
        /// The primary that these sentinels monitor under `master` (`SENTINEL get-master-addr-by-name`);
        /// `RedisPool` looks it up, and again after a failover.
        case sentinel(nodes: [SentinelNode], master: String)
    }

    /// One Redis Sentinel, reached over TCP.
    public struct SentinelNode: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String { HostAndPort.format(host: host, port: port) }
    }

    public var address: Address
    /// Database index sent with SELECT after connecting (0 is the server default and is not sent).
    public var database: Int
    /// ACL user name (Redis 6+ `AUTH username password`); nil means `AUTH password`.
    public var username: String?
    public var password: String?

    public init(address: Address, database: Int = 0, username: String? = nil, password: String? = nil) {
        self.address = address
        self.database = database
        self.username = username
        self.password = password
    }

    /// The endpoint as a URL with the password replaced by `***`, safe for logs and error messages.
    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):***@"
        switch address {
        case .tcp(let host, let port):
            let hostText = host.contains(":") ? "[\(host)]" : host
            return "redis://\(credentials)\(hostText):\(port)/\(database)"
        case .sentinel(let nodes, let master):
            let hosts = nodes.map(\.description).joined(separator: ",")
            return "redis-sentinel://\(credentials)\(hosts)/\(database)#\(master)"
        case .unix(let path):
            var query = ["db=\(database)"]
            if let username { query.append("username=\(username)") }
            if password != nil { query.append("password=***") }
            return "unix://\(path)?" + query.joined(separator: "&")
        }
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]`, `unix:///path/to/sock[?db=N&password=...&username=...]`
    /// and `redis-sentinel://[[user:]password@]host[:port][,host[:port]...][/db]#MASTER` (the form Lettuce reads).
    ///
    /// User name, password and master name may be percent-encoded. The port defaults to 6379 (26379 for a
    /// sentinel), the database to 0. A sentinel URL's credentials and database are those of the data nodes.
    /// `rediss://` is refused: hiredis 0.14 has no TLS.
    public static func parse(_ url: String) throws -> RedisEndpoint {
        func invalid(_ why: String) -> RedisError {
            RedisError(kind: .invalidURL, message: "\(why) in '\(redactedForError(url))'")
        }

        let lower = url.lowercased()
        if lower.hasPrefix("redis://") {
            return try parseTCP(String(url.dropFirst("redis://".count)), invalid: invalid)
        }
        if lower.hasPrefix("unix://") {
            return try parseUnix(String(url.dropFirst("unix://".count)), invalid: invalid)
        }
        if lower.hasPrefix("redis-sentinel://") {
            return try parseSentinel(String(url.dropFirst("redis-sentinel://".count)), invalid: invalid)
        }
        if lower.hasPrefix("rediss://") {
            throw invalid("TLS (rediss://) is not supported (hiredis 0.14 has no TLS)")
        }
        throw invalid("expected a URL starting with redis://, unix:// or redis-sentinel://")
    }

    private static func parseTCP(_ rest: String, invalid: (String) -> RedisError) throws -> RedisEndpoint {
        var username: String?
        var password: String?
        var hostPart = Substring(rest)
        // The last '@' ends the credentials: a password may contain '@' or '/', a host and db never do.
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            hostPart = rest[rest.index(after: at)...]
            guard let colon = userinfo.firstIndex(of: ":") else {
                throw invalid("credentials need a password ('user:password@' or ':password@')")
            }
            let user = try percentDecoded(userinfo[..<colon], invalid: invalid)
            username = user.isEmpty ? nil : user
            password = try percentDecoded(userinfo[userinfo.index(after: colon)...], invalid: invalid)
        }
        if hostPart.contains("?") {
            throw invalid("query parameters are not supported for redis:// (put the db in the path)")
        }

        var pathPart: Substring = ""
        if let slash = hostPart.firstIndex(of: "/") {
            pathPart = hostPart[hostPart.index(after: slash)...]
            hostPart = hostPart[..<slash]
        }

        let (host, port) = try hostAndPort(hostPart, defaultPort: 6379, invalid: invalid)

        var database = 0
        if !pathPart.isEmpty {
            guard let value = Int(pathPart), value >= 0 else {
                throw invalid("database must be a non-negative integer")
            }
            database = value
        }
        return RedisEndpoint(
            address: .tcp(host: host, port: port), database: database, username: username, password: password)
    }

    private static func parseSentinel(_ rest: String, invalid: (String) -> RedisError) throws -> RedisEndpoint {
        var username: String?
        var password: String?
        var remainder = Substring(rest)
        // As in redis://, the last '@' ends the credentials; a lone word before it is the password.
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            remainder = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                let user = try percentDecoded(userinfo[..<colon], invalid: invalid)
                username = user.isEmpty ? nil : user
                password = try percentDecoded(userinfo[userinfo.index(after: colon)...], invalid: invalid)
            } else {
                password = try percentDecoded(userinfo, invalid: invalid)
            }
        }
        guard let hash = remainder.firstIndex(of: "#") else {
            throw invalid("the master name is missing (redis-sentinel://host:port#MASTER)")
        }
        let master = try percentDecoded(remainder[remainder.index(after: hash)...], invalid: invalid)
        guard !master.isEmpty else { throw invalid("the master name after '#' is empty") }
        var hostsPart = remainder[..<hash]
        if hostsPart.contains("?") {
            throw invalid("query parameters are not supported for redis-sentinel:// (put the db in the path)")
        }
        var database = 0
        if let slash = hostsPart.firstIndex(of: "/") {
            let pathPart = hostsPart[hostsPart.index(after: slash)...]
            hostsPart = hostsPart[..<slash]
            if !pathPart.isEmpty {
                guard let value = Int(pathPart), value >= 0 else {
                    throw invalid("database must be a non-negative integer")
                }
                database = value
            }
        }
        let nodes = try hostsPart.split(separator: ",", omittingEmptySubsequences: false).map { part in
            let (host, port) = try hostAndPort(part, defaultPort: 26379, invalid: invalid)
            return SentinelNode(host: host, port: port)
        }
        return RedisEndpoint(
            address: .sentinel(nodes: nodes, master: master), database: database, username: username,
            password: password)
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func hostAndPort(
        _ hostPart: Substring, defaultPort: Int, invalid: (String) -> RedisError
    ) throws -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if hostPart.hasPrefix("[") {  // IPv6 literal: [::1]:6379
            guard let close = hostPart.firstIndex(of: "]") else { throw invalid("unterminated '[' in host") }
            host = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
            let after = hostPart[hostPart.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after ']'") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPart.firstIndex(of: ":") {
            host = hostPart[..<colon]
            portText = hostPart[hostPart.index(after: colon)...]
        } else {
            host = hostPart
        }
        guard !host.isEmpty else { throw invalid("missing host") }

        var port = defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw invalid("port must be a number from 1 to 65535")
            }
            port = value
        }
        return (String(host), port)
    }

    private static func parseUnix(_ rest: String, invalid: (String) -> RedisError) throws -> RedisEndpoint {
        var path = Substring(rest)
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        }
        guard path.hasPrefix("/"), path.count > 1 else {
            throw invalid("unix socket path must be absolute (unix:///path/to/sock)")
        }

        var endpoint = RedisEndpoint(address: .unix(path: try percentDecoded(path, invalid: invalid)))
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0]
            let value = try percentDecoded(parts.count > 1 ? parts[1] : "", invalid: invalid)
            switch key {
            case "db":
                guard let number = Int(value), number >= 0 else { throw invalid("db must be a non-negative integer") }
                endpoint.database = number
            case "password":
                endpoint.password = value
            case "username", "user":
                endpoint.username = value.isEmpty ? nil : value
            default:
                throw invalid("unknown query parameter '\(key)' (expected db, password, username)")
            }
        }
        if endpoint.username != nil && endpoint.password == nil { throw invalid("username given without password") }
        return endpoint
    }

    /// Decodes `%XX` escapes strictly; a malformed escape or non-UTF-8 result is an invalid URL.
    private static func percentDecoded(_ text: Substring, invalid: (String) -> RedisError) throws -> String {
        guard let bytes = PercentDecoding.strict(text) else { throw invalid("malformed percent escape") }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw invalid("percent escape is not UTF-8")
        }
        return decoded
    }

    /// The URL with anything between "://" and the last '@' and any password= value hidden, for error messages.
    private static func redactedForError(_ url: String) -> String {
        var text = url
        if let scheme = text.firstRange(of: "://"), let at = text.lastIndex(of: "@"), at > scheme.upperBound {
            text.replaceSubrange(scheme.upperBound..<at, with: "***")
        }
        if let range = text.firstRange(of: "password=") {
            let end = text[range.upperBound...].firstIndex(of: "&") ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return text
    }
}
