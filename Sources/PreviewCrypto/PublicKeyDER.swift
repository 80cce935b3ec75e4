// DER for handing JWK public keys and ES256 signatures to OpenSSL: SubjectPublicKeyInfo
// (RFC 5280 §4.1.2.7) for RSA (RFC 8017 A.1.1), P-256 (RFC 5480) and Ed25519 (RFC 8410), and
// ECDSA-Sig-Value (RFC 3279 §2.2.3) from the JWS `R || S` form (RFC 7518 §3.4).
import PreviewCore

enum PublicKeyDER {
    /// The SubjectPublicKeyInfo of `jwk`.
    static func subjectPublicKeyInfo(_ jwk: JWK) -> [UInt8] {
        switch jwk.material {
        case .rsa(let modulus, let exponent):
            // rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters.
            let algorithm = sequence([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
            let key = sequence(integer(modulus) + integer(exponent))
            return sequence(algorithm + bitString(key))
        case .p256(let x, let y):
            // id-ecPublicKey (1.2.840.10045.2.1) on prime256v1 (1.2.840.10045.3.1.7).
            let algorithm = sequence(
                [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
                    + [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
            return sequence(algorithm + bitString([0x04] + x + y))
        case .ed25519(let x):
            // id-Ed25519 (1.3.101.112), no parameters.
            return sequence(sequence([0x06, 0x03, 0x2B, 0x65, 0x70]) + bitString(x))
        }
    }

    /// The DER signature of a 64-byte JWS ES256 signature; nil for any other length.
    static func ecdsaSignature(raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 64 else { return nil }
        return sequence(integer(Array(raw[0..<32])) + integer(Array(raw[32..<64])))
    }

    private static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }

    private static func bitString(_ content: [UInt8]) -> [UInt8] {
        [0x03] + length(content.count + 1) + [0x00] + content
    }

    /// A non-negative INTEGER from big-endian bytes: minimal, with a zero byte before a set high bit.
    private static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if let first = value.first, first & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02] + length(value.count) + value
    }

    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
