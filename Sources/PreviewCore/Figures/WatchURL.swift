/// Where a stream's tracking link sends a browser: checked before it is stored, since every
/// viewer who follows the link is sent there.
public enum WatchURL {
    /// Longer URLs are refused (browsers and chat apps cut them somewhere past 2,000).
    public static let maxBytes = 2048

    /// Schemes refused even when an operator lists them: they run or embed content instead of
    /// leading somewhere.
    static let neverAllowed: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about"]

    /// Why `text` cannot be a watch URL, or nil when it can: an absolute `https` URL with a host
    /// and no user part (`https://evil@example.com` reads like another site), or a URL of one of
    /// `allowedSchemes` (lower case: an app's deep-link scheme), at most `maxBytes`, printable
    /// ASCII without spaces (anything else percent-encoded).
    public static func problem(_ text: String, allowedSchemes: Set<String>) -> String? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return "watchUrl is empty" }
        guard bytes.count <= maxBytes else { return "watchUrl is over \(maxBytes) bytes" }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            return "watchUrl must be printable ASCII without spaces (percent-encode the rest)"
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            ASCII.isLetter(bytes[0]),
            bytes[..<colon].allSatisfy({
                ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            })
        else { return "watchUrl must be an absolute URL (https://...)" }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        let rest = bytes[(colon + 1)...]
        if scheme == "https" {
            guard rest.starts(with: "//".utf8) else { return "an https watchUrl must be https://host/..." }
            let authority = rest.dropFirst(2).prefix { !"/?#".utf8.contains($0) }
            guard !authority.isEmpty else { return "watchUrl has no host" }
            guard !authority.contains(UInt8(ascii: "@")) else { return "watchUrl must not carry a user name" }
            return nil
        }
        guard allowedSchemes.contains(scheme), !neverAllowed.contains(scheme) else {
            let others = allowedSchemes.subtracting(neverAllowed).sorted()
            let listed = others.isEmpty ? "" : " or one of " + others.map { $0 + ":" }.joined(separator: ", ")
            return "watchUrl must be https\(listed)"
        }
        guard !rest.isEmpty else { return "watchUrl has nothing after its scheme" }
        return nil
    }
}
