import PreviewCore
import PreviewCrypto
import Testing

/// `StreamPreview-Signature: t=UNIX,v1=HEX`, HMAC-SHA256 of "t.body": the values are Python's
/// `hmac.new(secret, b"1700000000." + body, hashlib.sha256).hexdigest()`.
@Suite("Webhook signatures: sign, parse, verify")
struct WebhookSignatureTests {
    static let crypto = OpenSSLCrypto()
    static let current = Array("whsec-0123456789abcdef0123456789abcdef".utf8)
    static let old = Array("old-secret-0123456789abcdef0123456789ab".utf8)
    static let body = Array(#"{"allow":true}"#.utf8)
    static let currentHex = "42123d12367abdd626a57ac319aa470b4c09e1be971e3747517d602a12012734"
    static let oldHex = "bba9a25795ff7881c5fb9a7be9e9c8ffd88cad1b78ff3e01747a60af1a7c73c1"

    func key(_ secret: [UInt8]) -> any HMACKey { Self.crypto.hmacKey(secret) }

    @Test("the header is t then one v1 per key, the current key first, as Python's hmac computes them")
    func signsWithEveryKey() {
        let signature = WebhookSignature.sign(
            body: Self.body, timestamp: 1_700_000_000, keys: [key(Self.current), key(Self.old)])
        #expect(signature.headerValue == "t=1700000000,v1=\(Self.currentHex),v1=\(Self.oldHex)")
    }

    @Test("parse reads t and every v1 (blanks around parts allowed), skips other schemes, needs both t and v1")
    func parses() {
        #expect(
            WebhookSignature.parse("t=5, v0=zz ,v1=ab,v1=cd,junk")
                == WebhookSignature(timestamp: 5, signatures: ["ab", "cd"]))
        #expect(WebhookSignature.parse("v1=ab") == nil)
        #expect(WebhookSignature.parse("t=5") == nil)
        #expect(WebhookSignature.parse("t=x,v1=ab") == nil)
        #expect(WebhookSignature.parse("") == nil)
        #expect(WebhookSignature.parse("t=5,v1= ,v1=ab") == WebhookSignature(timestamp: 5, signatures: ["ab"]))
        #expect(WebhookSignature.parse("t=5,v1= ") == nil, "an empty v1 is no signature")
    }

    @Test("a receiver holding either key verifies; a tampered body, another key or a changed t does not")
    func verifies() throws {
        let header = WebhookSignature.sign(
            body: Self.body, timestamp: 1_700_000_000, keys: [key(Self.current), key(Self.old)]
        ).headerValue
        let signature = try #require(WebhookSignature.parse(header))
        func check(_ body: [UInt8], _ secret: [UInt8], _ signature: WebhookSignature) -> Bool {
            signature.verifies(body: body, key: key(secret), now: 1_700_000_010, tolerance: 300, crypto: Self.crypto)
        }
        #expect(check(Self.body, Self.current, signature))
        #expect(check(Self.body, Self.old, signature), "a receiver not yet rotated still verifies")
        #expect(!check(Array(#"{"allow":false}"#.utf8), Self.current, signature))
        #expect(!check(Self.body, Array("another-secret-0123456789abcdef0123456".utf8), signature))
        let moved = WebhookSignature(timestamp: 1_700_000_001, signatures: signature.signatures)
        #expect(!check(Self.body, Self.current, moved), "t is signed too")
        let uppercase = WebhookSignature(timestamp: 1_700_000_000, signatures: [Self.currentHex.uppercased()])
        #expect(!check(Self.body, Self.current, uppercase), "hex is compared as sent: lower case")
    }

    @Test("a timestamp further than the tolerance from now, either way, is refused: a replay")
    func tolerance() {
        let signature = WebhookSignature.sign(body: Self.body, timestamp: 1_000, keys: [key(Self.current)])
        for (now, expected) in [(1_300, true), (1_301, false), (700, true), (699, false)] as [(Int64, Bool)] {
            let verified = signature.verifies(
                body: Self.body, key: key(Self.current), now: now, tolerance: 300, crypto: Self.crypto)
            #expect(verified == expected, "now \(now)")
        }
    }

    @Test(
        "a timestamp at the ends of Int64 is refused, not a trap: t=-9223372036854775808 and t=9223372036854775807, against any now"
    )
    func extremeTimestamps() throws {
        for text in ["-9223372036854775808", "9223372036854775807"] {
            let timestamp = try #require(Int64(text))
            let signed = WebhookSignature.sign(body: Self.body, timestamp: timestamp, keys: [key(Self.current)])
            let parsed = try #require(WebhookSignature.parse("t=\(text),v1=\(signed.signatures[0])"))
            #expect(parsed == signed)
            for now in [Int64.min, -1, 0, 1_700_000_000, Int64.max] where now != timestamp {
                let verified = parsed.verifies(
                    body: Self.body, key: key(Self.current), now: now, tolerance: 300, crypto: Self.crypto)
                #expect(!verified, "t=\(text) at now \(now)")
            }
            // The distance is 0 at now == t, so a correctly signed header at that instant verifies.
            #expect(
                parsed.verifies(
                    body: Self.body, key: key(Self.current), now: timestamp, tolerance: 300, crypto: Self.crypto))
        }
        let any = WebhookSignature.sign(body: Self.body, timestamp: 0, keys: [key(Self.current)])
        #expect(!any.verifies(body: Self.body, key: key(Self.current), now: 0, tolerance: -1, crypto: Self.crypto))
    }
}
