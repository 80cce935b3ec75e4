/// The canonical form of an ES256 signature (RFC 7518 §3.4: `R || S`, 32 bytes each,
/// big-endian): S in the lower half of the P-256 group order.
///
/// ECDSA is malleable: whoever holds a token signed with `(R, S)` can write `(R, n − S)`, a
/// second signature of the same claims that verifies too, without the key. Many providers'
/// ECDSA libraries leave S as it comes, so half their tokens are in the high form: both forms
/// are accepted (refusing one would refuse those providers' users), and only the low-S form is
/// held as a known token, so the twin is one token, never a second entry of anything keyed by
/// token text. Nothing in this service decides by a token's text beyond that cache.
public enum ES256Signature {
    /// Half the order n of the P-256 group (SEC 2 §2.4.2), rounded down: the largest S accepted.
    static let halfOrder: [UInt8] = [
        0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8,
    ]

    /// Whether a 64-byte `R || S` has S ≤ n/2. Another length passes here: the key's check
    /// refuses it, as it refuses R or S of 0 or not below n.
    public static func hasLowS(_ signature: [UInt8]) -> Bool {
        guard signature.count == 64 else { return true }
        for (byte, limit) in zip(signature[32...], halfOrder) where byte != limit { return byte < limit }
        return true
    }
}
