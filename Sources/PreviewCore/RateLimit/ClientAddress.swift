/// Which address a request comes from: the TCP peer, or, when the peer is a trusted proxy,
/// the right-most `X-Forwarded-For` entry that is not itself a trusted proxy.
///
/// Proxies append the address they received a connection from, so only the entries to the
/// right of the first untrusted one were written by proxies we trust; anything left of it
/// (including all of a client's own `X-Forwarded-For`) is the client's word and is ignored.
/// A malformed entry (not an IP address, `unknown`, an obfuscated `_name`) ends the walk as
/// an untrusted hop would, and the client is then the nearest trusted hop to its right: the
/// proxy that was handed the malformed entry. Never the malformed text, so a client cannot
/// pick the key it is limited under.
public struct TrustedProxies: Sendable, Equatable {
    public let blocks: [CIDRBlock]

    public init(_ blocks: [CIDRBlock] = []) {
        self.blocks = blocks
    }

    public var isEmpty: Bool { blocks.isEmpty }

    public func trusts(_ address: IPAddress) -> Bool {
        blocks.contains { $0.contains(address) }
    }

    /// The client address of a request from `peer` (as the server writes it), given its
    /// `X-Forwarded-For` values in the order they came (several fields are one list, RFC 9110
    /// §5.3). Nil when the peer is no IP address (a unix socket): then nothing is known.
    public func clientAddress(peer: String, forwardedFor: [String]) -> IPAddress? {
        guard let peerAddress = IPAddress(peer) else { return nil }
        guard !blocks.isEmpty, trusts(peerAddress) else { return peerAddress }
        var client = peerAddress
        for field in forwardedFor.reversed() {
            for entry in field.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                guard let address = Self.forwardedAddress(entry) else { return client }
                client = address
                if !trusts(address) { return address }
            }
        }
        return client
    }

    /// One `X-Forwarded-For` entry: an address, `[IPv6]` or `[IPv6]:port`, or `IPv4:port`
    /// (some proxies add the port), between optional spaces; nil when malformed.
    static func forwardedAddress(_ entry: Substring) -> IPAddress? {
        let text = entry.trimmingSpacesAndTabs()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && UInt16(rest.dropFirst()) != nil) else { return nil }
            let inner = text[text.index(after: text.startIndex)..<close]
            guard let address = IPAddress(inner), !address.isIPv4 || inner.contains(":") else { return nil }
            return address
        }
        if let address = IPAddress(text) { return address }
        // IPv4 with a port: exactly one colon.
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, UInt16(parts[1]) != nil, let address = IPAddress(parts[0]), address.isIPv4 else {
            return nil
        }
        return address
    }
}
