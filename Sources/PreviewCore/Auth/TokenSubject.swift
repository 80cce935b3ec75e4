/// The `sub` of a bearer token (RFC 7519 §4.1.2), and the one string every user of a subject
/// (likes, seen marks, rate limits, retained-byte quotas, the moderation hook, logs) keys by.
///
/// A subject is unique only within its issuer (OpenID Connect Core §2), so a provider's
/// subject is kept as `idp:<issuer digest>:<sub>`: `idp:`, the lowercase hex SHA-256 of the
/// token's `iss` (64 digits, so the boundary is fixed), `:`, then `sub` as sent. Our HS256
/// tokens keep `sub` as it is and may not start with `idp:`, so no HS256 subject and no other
/// issuer's subject can equal a provider's; the key depends on `iss` and `sub` alone, so it is
/// the same on every replica and after every restart.
public enum TokenSubject {
    /// The prefix of a provider's subject key, refused at the start of an HS256 `sub`.
    public static let providerPrefix = "idp:"
    /// The longest key: the prefix, 64 hex digits, `:` and the longest `sub`.
    public static let maxKeyBytes = providerPrefix.utf8.count + 64 + 1 + JWTVerifier.maxSubjectBytes

    /// The key of subject `sub` of issuer `issuer` (see above).
    public static func providerKey(issuer: String, subject: String, crypto: any CryptoPrimitives) -> String {
        providerPrefix + Hex.encode(crypto.sha256(Array(issuer.utf8))) + ":" + subject
    }

    /// Whether `sub` may name a caller: not empty, and no character that would hide or reorder
    /// text where the subject is shown (logs, a moderator's screen, the hook's JSON): C0
    /// controls, DEL, C1 controls, the line and paragraph separators (U+2028, U+2029), the
    /// byte-order mark (U+FEFF) and Unicode's Bidi_Control characters (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069). Its length is checked apart (`JWTVerifier.maxSubjectBytes`).
    public static func isAcceptable(_ sub: String) -> Bool {
        !sub.isEmpty && !sub.unicodeScalars.contains(where: isRefused)
    }

    /// Whether `sub` may name the caller of one of our HS256 tokens: acceptable, and not in
    /// the providers' namespace.
    public static func isAcceptableForHS256(_ sub: String) -> Bool {
        isAcceptable(sub) && !sub.hasPrefix(providerPrefix)
    }

    private static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0xFEFF, 0x061C, 0x200E, 0x200F, 0x202A...0x202E,
            0x2066...0x2069:
            return true
        default:
            return false
        }
    }
}
