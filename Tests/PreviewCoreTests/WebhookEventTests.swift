import Foundation
import PreviewCore
import PreviewCrypto
import Testing

@Suite("Webhooks: event payloads")
struct WebhookEventTests {
    static let replaced = WebhookEvent(
        id: "evt_0123456789abcdef0123456789abcdef", type: .replaced, createdAt: 1_764_756_000, streamId: 42,
        previewVersion: 3, uploadId: "00112233445566778899aabbccddeeff", expiresAt: 1_764_756_600, previousVersion: 2,
        previousUploadId: "ffeeddccbbaa99887766554433221100")

    @Test("a replacement is sent as the documented JSON, int64 values as strings, absent fields left out")
    func replacedBody() {
        let expected =
            #"{"id":"evt_0123456789abcdef0123456789abcdef","type":"preview.replaced","createdAt":"1764756000","#
            + #""data":{"streamId":"42","previewVersion":"3","uploadId":"00112233445566778899aabbccddeeff","#
            + #""expiresAt":"1764756600","previousVersion":"2","previousUploadId":"ffeeddccbbaa99887766554433221100"}}"#
        #expect(String(decoding: Self.replaced.jsonBody, as: UTF8.self) == expected)
    }

    @Test("a removal carries its reason and no expiry")
    func removedBody() {
        let event = WebhookEvent(
            id: "evt_ffffffffffffffffffffffffffff0001", type: .removed, createdAt: 5, streamId: -7, previewVersion: 1,
            uploadId: "u", reason: .ended)
        #expect(
            String(decoding: event.jsonBody, as: UTF8.self)
                == #"{"id":"evt_ffffffffffffffffffffffffffff0001","type":"preview.removed","createdAt":"5","#
                + #""data":{"streamId":"-7","previewVersion":"1","uploadId":"u","reason":"ended"}}"#)
    }

    @Test("the body is valid JSON that Foundation reads back")
    func foundationReadsIt() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.replaced.jsonBody)) as? [String: Any])
        #expect(object["type"] as? String == "preview.replaced")
        #expect((object["data"] as? [String: Any])?["previousVersion"] as? String == "2")
    }

    @Test("stored fields read back to the same event; a field missing for its type is refused")
    func fieldsRoundTrip() {
        let fields = Dictionary(uniqueKeysWithValues: Self.replaced.fields)
        #expect(WebhookEvent(fields: fields) == Self.replaced)
        var missing = fields
        missing["previousVersion"] = nil
        #expect(WebhookEvent(fields: missing) == nil)
        var badID = fields
        badID["id"] = "evt_xyz"
        #expect(WebhookEvent(fields: badID) == nil)
        var badType = fields
        badType["type"] = "preview.exploded"
        #expect(WebhookEvent(fields: badType) == nil)
        var removed = fields
        removed["type"] = "preview.removed"
        #expect(WebhookEvent(fields: removed) == nil, "a removal needs its reason")
        removed["reason"] = "expired"
        #expect(WebhookEvent(fields: removed)?.reason == .expired)
    }

    @Test("event IDs are evt_ and 32 hex digits; nonces are 28 of them")
    func ids() {
        var generator = SystemRandomNumberGenerator()
        let nonce = WebhookEvent.makeNonce(using: &generator)
        #expect(nonce.count == 28)
        #expect(WebhookEvent.isValidID("evt_" + nonce + "0000"))
        #expect(!WebhookEvent.isValidID("evt_" + nonce))
        #expect(!WebhookEvent.isValidID("evt_" + nonce.uppercased() + "0000") || nonce.uppercased() == nonce)
    }

    @Test("the signature of a body matches HMAC-SHA256 of 't.body' computed by openssl, and verifies")
    func signatureGolden() throws {
        let crypto = OpenSSLCrypto()
        let key = crypto.hmacKey(Array("whsec-test-secret-0123456789abcdef".utf8))
        let signature = WebhookSignature.sign(body: Self.replaced.jsonBody, timestamp: 1_764_756_000, keys: [key])
        // printf '%s' "1764756000.<body>" | openssl dgst -sha256 -hmac whsec-test-secret-0123456789abcdef
        #expect(
            signature.headerValue == "t=1764756000,v1=b25b6c31b99de1ce20a27d54b206994cd93f3808befa8a3a56ef610ce622a2fb")
        let parsed = try #require(WebhookSignature.parse(signature.headerValue))
        #expect(
            parsed.verifies(body: Self.replaced.jsonBody, key: key, now: 1_764_756_100, tolerance: 300, crypto: crypto))
        #expect(
            !parsed.verifies(
                body: Self.replaced.jsonBody, key: key, now: 1_764_757_000, tolerance: 300, crypto: crypto),
            "an old timestamp is a replay")
    }

    @Test("log lines show receiver URLs without query or user info")
    func redaction() {
        #expect(
            WebhookEndpoint.redacted("https://user:pw@hooks.example.com/in?token=secret")
                == "https://hooks.example.com/in")
        #expect(WebhookEndpoint.redacted("http://127.0.0.1:9/x#frag") == "http://127.0.0.1:9/x")
        let endpoint = WebhookEndpoint(url: "https://hooks.example.com/in", crypto: OpenSSLCrypto())
        #expect(endpoint.id.count == 16)
        #expect(endpoint.id != WebhookEndpoint(url: "https://hooks.example.com/in2", crypto: OpenSSLCrypto()).id)
    }
}

@Suite("Webhooks: keys")
struct WebhookKeysTests {
    @Test("a stream's outbox and replaced-objects keys share its hash tag; the global ones share {hooks}")
    func hashTags() {
        let keys = RedisKeys(prefix: "sp")
        #expect(keys.webhookOutbox(42) == "sp:{s:42}:webhooks")
        #expect(keys.replacedObjects(42) == "sp:{s:42}:replaced")
        #expect(keys.webhookRelayed(42) == "sp:{s:42}:webhooks:relayed")
        for key in [
            keys.webhookOutboxes, keys.webhookTouched, keys.webhookDeadLetters,
            keys.webhookDeliveries(endpoint: "0123456789abcdef"), keys.webhookQueued(endpoint: "0123456789abcdef"),
        ] {
            #expect(key.hasPrefix("sp:{hooks}:"), "\(key)")
        }
    }
}

@Suite("Webhooks: retry schedule")
struct WebhookRetryPolicyTests {
    @Test("the default schedule doubles from 10 s up to an hour and stops within 24 h of the event")
    func defaultSchedule() {
        let times = WebhookRetryPolicy().schedule()
        #expect(Array(times.prefix(10)) == [0, 12, 32, 72, 152, 312, 632, 1272, 2552, 5112])
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.first == 12, "the first retry waits out the 10 s attempt timeout + 2 s")
        #expect(Array(gaps.prefix(9)) == [12, 20, 40, 80, 160, 320, 640, 1280, 2560])
        #expect(gaps.dropFirst(9).allSatisfy { $0 == 3600 }, "capped at an hour")
        #expect(times.last.map { $0 <= 86400 } == true)
        #expect(times.count == 32, "\(times)")
    }

    @Test("after a failure: retry while the next attempt starts by the deadline, else dead-letter")
    func nextDecision() {
        let policy = WebhookRetryPolicy(firstDelaySeconds: 10, maxAgeSeconds: 100, attemptTimeoutSeconds: 1)
        #expect(policy.next(afterAttempts: 1, failedAt: 50, deadline: 100) == .retry(at: 60))
        #expect(policy.next(afterAttempts: 3, failedAt: 50, deadline: 100) == .retry(at: 90))
        #expect(policy.next(afterAttempts: 3, failedAt: 61, deadline: 100) == .deadLetter)
        #expect(policy.next(afterAttempts: 1, failedAt: 101, deadline: 100) == .deadLetter)
    }

    @Test("a delivery in flight is never claimed by another process before its attempt timed out")
    func claimIdleCoversTheTimeout() {
        let policy = WebhookRetryPolicy(firstDelaySeconds: 1, maxDelaySeconds: 3600, attemptTimeoutSeconds: 10)
        #expect(policy.claimIdleMilliseconds(afterAttempts: 1) == 12_000)
        #expect(policy.minimumClaimIdleMilliseconds == 12_000)
        #expect(policy.claimIdleMilliseconds(afterAttempts: 5) == 16_000)
        #expect(policy.delaySeconds(afterAttempts: 1_000) == 3600, "no overflow on huge attempt counts")
    }
}
