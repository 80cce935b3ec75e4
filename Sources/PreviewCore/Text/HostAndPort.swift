/// `host:port` as URLs and Redis write it (RFC 3986 §3.2.2): an IPv6 literal in brackets, so
/// its colons are not read as the port's. The one place that adds and removes the brackets.
public enum HostAndPort {
    /// `host:port`, `[v6]:port` when the host has a colon.
    public static func format(host: some StringProtocol, port: Int) -> String {
        "\(bracketed(host)):\(port)"
    }

    /// The host as an authority writes it: in brackets when it is an IPv6 literal (has a colon
    /// and no brackets yet).
    public static func bracketed(_ host: some StringProtocol) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : String(host)
    }

    /// The host without the brackets around an IPv6 literal.
    public static func unbracketed(_ host: some StringProtocol) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2
            ? String(host.dropFirst().dropLast()) : String(host)
    }

    /// Splits `host:port` or `[v6]:port` at its last colon: the host without brackets and the
    /// port's digits as a number (not range-checked); nil when there is no colon or no number
    /// after it. The host may be empty.
    public static func split(_ text: some StringProtocol) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            return nil
        }
        return (unbracketed(text[..<colon]), port)
    }
}
