import PreviewCrypto

// libFuzzer target for the JWT parser and verifier (`JWTVerifier`, `Base64URL`, the claims
// JSON), with the real HMAC of PreviewCrypto; scripts/fuzz.sh builds and runs it.
// Input: one mode byte, then
//   mode 0: a token as sent (mostly refused for its MAC: exercises shape and header checks);
//   mode 1: `<header JSON>\n<claims JSON>`, encoded and signed here with the verifier's key;
//   mode 2: a signing input `<base64url>.<base64url>`, signed here with the verifier's key.
// Modes 1 and 2 carry a valid MAC, so mutations reach the claims decoder and time checks.
@testable import PreviewCore

let crypto = OpenSSLCrypto()
let key = Array("fuzz-secret-fuzz-secret-fuzz-secret!".utf8)
// The named key is the default key too, so every correctly signed token has a valid MAC.
let verifier = JWTVerifier(keys: JWTKeySet(defaultKey: key, keys: ["k2": key]), crypto: crypto)
let now: Int64 = 1_700_000_000
let leeway: Int64 = 30

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    check(Base64URL.decode(Base64URL.encode(rest)) == rest, "base64url does not round-trip \(rest)")

    switch mode % 3 {
    case 0:
        inspect(verifier.verify(String(decoding: rest, as: UTF8.self), now: now, leeway: leeway), signed: false)
    case 1:
        let parts = rest.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return 0 }
        let signingInput = Base64URL.encode(Array(parts[0])) + "." + Base64URL.encode(Array(parts[1]))
        inspect(verifier.verify(signed(signingInput), now: now, leeway: leeway), signed: true)
    default:
        let signingInput = String(decoding: rest, as: UTF8.self)
        let dots = signingInput.utf8.filter { $0 == UInt8(ascii: ".") }.count
        inspect(verifier.verify(signed(signingInput), now: now, leeway: leeway), signed: dots == 1)
    }
    return 0
}

func signed(_ signingInput: String) -> String {
    signingInput + "." + Base64URL.encode(crypto.hmacSHA256(key: key, message: Array(signingInput.utf8)))
}

/// Accepted claims are current, and signing them again gives a token that verifies to the same
/// claims; a token signed with the verifier's key is never refused for its signature.
func inspect(_ result: Result<TokenClaims, TokenError>, signed: Bool) {
    switch result {
    case .success(let claims):
        check(now < claims.expiresAt &+ leeway || claims.expiresAt > Int64.max - leeway, "expired \(claims)")
        check(claims.issuedAt <= now + leeway, "issued in the future: \(claims)")
        check(claims.streamIds.allSatisfy { $0 > 0 }, "stream ids not positive: \(claims)")
        let again = verifier.verify(JWTSigner(crypto: crypto).sign(claims, key: key), now: now, leeway: leeway)
        check(again == .success(claims), "re-signed claims verify to \(again), were \(claims)")
    case .failure(.badSignature):
        check(!signed, "a token signed with the verifier's key was refused for its signature")
    case .failure:
        break
    }
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
