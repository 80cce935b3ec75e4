/// Object keys in URLs.
public enum ObjectPath {
    /// Percent-encodes a key's UTF-8 bytes for a URL path the way S3 and GCS canonicalise it:
    /// everything but unreserved characters and `/` (RFC 3986 §2.3), never normalised.
    public static func encode(_ key: String) -> String {
        SigV4Encoding.uriEncode(key.utf8, keepSlash: true)
    }
}
