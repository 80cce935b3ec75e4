import PreviewCrypto
import Testing

@testable import PreviewCore

/// The per-scope signing key that S3, local-store and GCS HMAC signers keep between URLs.
@Suite struct SigningKeyCacheTests {
    let crypto = OpenSSLCrypto()
    /// 2025-01-15T12:34:56Z, and the same time on the next day.
    let day1: Int64 = 1_736_944_496
    let day2: Int64 = 1_736_944_496 + 86_400

    func request(at time: Int64, key: String = "clips/42.mp4") -> ObjectSignRequest {
        ObjectSignRequest(
            method: "PUT", bucket: "bkt", key: key, expiresSeconds: 900, signingTime: time,
            headers: [("Content-Type", "video/mp4")])
    }

    @Test func anS3SignerCrossingMidnightSignsAsFreshSignersDo() throws {
        let credentials = SigV4Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret")
        let kept = S3Presigner(credentials: credentials, region: "us-west-2", crypto: crypto)
        for (time, key) in [(day1, "a"), (day1, "b"), (day2, "a"), (day1, "c"), (day2, "d")] {
            let fresh = S3Presigner(credentials: credentials, region: "us-west-2", crypto: crypto)
            #expect(try kept.presign(request(at: time, key: key)) == fresh.presign(request(at: time, key: key)))
        }
    }

    @Test func aGCSHMACSignerCrossingMidnightSignsAsFreshSignersDo() throws {
        let credentials = GCSV4Credentials.hmac(accessId: "GOOG1EXAMPLE", secret: "secret")
        let kept = try GCSV4Presigner(credentials: credentials, crypto: crypto)
        for (time, key) in [(day1, "a"), (day2, "b"), (day2, "c"), (day1, "d")] {
            let fresh = try GCSV4Presigner(credentials: credentials, crypto: crypto)
            #expect(try kept.presign(request(at: time, key: key)) == fresh.presign(request(at: time, key: key)))
        }
    }

    @Test func aKeyIsDerivedOncePerScope() {
        let cache = SigningKeyCache()
        var derivations = 0
        for scope in [
            "20250115/us-east-1/s3/aws4_request", "20250115/us-east-1/s3/aws4_request",
            "20250116/us-east-1/s3/aws4_request", "20250116/us-east-1/s3/aws4_request",
        ] {
            let key = cache.key(scope: scope, crypto: crypto) {
                derivations += 1
                return Array(scope.utf8)
            }
            #expect(key.authenticate([1, 2, 3]) == crypto.hmacSHA256(key: Array(scope.utf8), message: [1, 2, 3]))
        }
        #expect(derivations == 2)
    }
}
