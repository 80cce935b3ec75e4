import PreviewCrypto

// libFuzzer target for JWKS documents (`JWKSet.parse`) and the public keys OpenSSL builds from
// what it accepts (DER SubjectPublicKeyInfo through d2i_PUBKEY), with a signature check of each;
// scripts/fuzz.sh builds and runs it. Input: a JWKS document as an identity provider serves it.
@testable import PreviewCore

let crypto = OpenSSLCrypto()
let message = Array("eyJhbGciOiJSUzI1NiJ9.e30".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let set = try? JWKSet.parse(input) else { return 0 }
    check(!set.keys.isEmpty && set.keys.count <= JWKSet.maxKeys, "key count \(set.keys.count)")
    check(Set(set.keys.map(\.kid)).count == set.keys.count, "a kid twice")
    for key in set.keys {
        check(JWTKeyID.isValid(key.kid), "kid \(key.kid)")
        switch key.material {
        case .rsa(let modulus, let exponent):
            check(modulus.first != 0 && modulus.count >= 256 && modulus.count <= 1024, "modulus of \(modulus.count)")
            check(exponent.last.map { $0 & 1 == 1 } ?? false, "even exponent")
        case .p256(let x, let y): check(x.count == 32 && y.count == 32, "P-256 coordinates")
        case .ed25519(let x): check(x.count == 32, "Ed25519 key")
        }
    }
    let keys = JWTPublicKeys(set, generation: 1, crypto: crypto)
    for entry in keys.keys.values {
        // No signature of these lengths signs the message: every check answers false, none traps.
        for length in [0, 64, 256] {
            check(!entry.key.verify([UInt8](repeating: 1, count: length), of: message), "a forged signature verified")
        }
    }
    return 0
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
