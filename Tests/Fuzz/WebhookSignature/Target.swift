import PreviewCrypto

// libFuzzer target for `WebhookSignature` (the `StreamPreview-Signature` header a receiver
// parses and verifies), with the real HMAC of PreviewCrypto; scripts/fuzz.sh builds and runs it.
// Input: 8 bytes of `now` (little-endian Int64, any value), then the header value as UTF-8, a
// line feed, and the body. Parsing and verifying must never trap, whatever `t=` and `now` are.
@testable import PreviewCore

let crypto = OpenSSLCrypto()
let key = crypto.hmacKey(Array("fuzz-webhook-secret-0123456789abcdef".utf8))
let tolerance: Int64 = 300

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebhookSignature(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 8 else { return 0 }
    var bits: UInt64 = 0
    for byte in input[..<8].reversed() { bits = bits << 8 | UInt64(byte) }
    let now = Int64(bitPattern: bits)
    let rest = input[8...]
    let newline = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
    let header = String(decoding: rest[..<newline], as: UTF8.self)
    let body = Array(rest[newline...].dropFirst())

    guard let signature = WebhookSignature.parse(header) else { return 0 }
    check(!signature.signatures.isEmpty, "parsed without a v1: \(header)")
    check(signature.signatures.allSatisfy { !$0.isEmpty }, "an empty v1 kept from \(header)")
    check(WebhookSignature.parse(signature.headerValue) == signature, "\(header) does not round-trip")

    let expected = Hex.encode(
        key.authenticate(WebhookSignature.signedPayload(body: body, timestamp: signature.timestamp)))
    if signature.verifies(body: body, key: key, now: now, tolerance: tolerance, crypto: crypto) {
        let (distance, overflow) = now.subtractingReportingOverflow(signature.timestamp)
        check(!overflow && distance.magnitude <= UInt64(tolerance), "t=\(signature.timestamp) verified at \(now)")
        check(signature.signatures.contains(expected), "verified without the expected MAC: \(header)")
    }
    // Signed here with the key at the header's own time: verifies at that time, and at any
    // `now` exactly when the distance is within the tolerance.
    let signed = WebhookSignature.sign(body: body, timestamp: signature.timestamp, keys: [key])
    check(signed.signatures == [expected], "sign and verify disagree on the MAC")
    check(
        signed.verifies(body: body, key: key, now: signature.timestamp, tolerance: tolerance, crypto: crypto),
        "a fresh signature at t=\(signature.timestamp) is refused")
    let (distance, overflow) = now.subtractingReportingOverflow(signature.timestamp)
    let inTime = !overflow && distance.magnitude <= UInt64(tolerance)
    check(
        signed.verifies(body: body, key: key, now: now, tolerance: tolerance, crypto: crypto) == inTime,
        "t=\(signature.timestamp) at now \(now): in time is \(inTime)")
    return 0
}

/// Traps (a libFuzzer crash, with the input saved) when an invariant does not hold.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}
