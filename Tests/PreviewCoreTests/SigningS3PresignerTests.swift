import PreviewCrypto
import Testing

@testable import PreviewCore

/// S3 endpoint resolution and presigning; expected values were produced by botocore 1.43.127
/// `generate_presigned_url` with a frozen clock (the conformance suite checks ~560 more).
@Suite struct SigningS3PresignerTests {
    let crypto = OpenSSLCrypto()
    /// 2025-01-15T12:34:56Z.
    let at: Int64 = 1_736_944_496

    @Test(
        arguments: [
            // (bucket, region, endpoint, addressing, expected "scheme://authority" + key prefix)
            ("my-bucket", "us-east-1", nil, S3Addressing.auto, "https://my-bucket.s3.amazonaws.com/"),
            ("my-bucket", "us-west-2", nil, .auto, "https://my-bucket.s3.amazonaws.com/"),
            ("my.bucket", "us-west-2", nil, .auto, "https://s3.us-west-2.amazonaws.com/my.bucket/"),
            ("my.bucket", "us-east-1", nil, .virtual, "https://s3.amazonaws.com/my.bucket/"),
            ("MyBucket", "eu-central-1", nil, .auto, "https://s3.amazonaws.com/MyBucket/"),
            ("MyBucket", "us-west-2", nil, .virtual, "https://s3.us-west-2.amazonaws.com/MyBucket/"),
            ("my_bucket", "us-east-1", nil, .auto, "https://s3.amazonaws.com/my_bucket/"),
            ("ab", "us-east-1", nil, .auto, "https://s3.amazonaws.com/ab/"),
            ("my-bucket", "us-west-2", nil, .virtual, "https://my-bucket.s3.us-west-2.amazonaws.com/"),
            ("my-bucket", "us-west-2", nil, .path, "https://s3.us-west-2.amazonaws.com/my-bucket/"),
            ("my-bucket", "us-east-1", nil, .path, "https://s3.amazonaws.com/my-bucket/"),
            ("my-bucket", "cn-north-1", nil, .auto, "https://my-bucket.s3.cn-north-1.amazonaws.com.cn/"),
            ("my-bucket", "us-gov-west-1", nil, .auto, "https://my-bucket.s3.us-gov-west-1.amazonaws.com/"),
            (
                "my-bucket", "auto", "https://acc.r2.cloudflarestorage.com", .auto,
                "https://acc.r2.cloudflarestorage.com/my-bucket/"
            ),
            (
                "my-bucket", "auto", "https://acc.r2.cloudflarestorage.com", .virtual,
                "https://my-bucket.acc.r2.cloudflarestorage.com/"
            ),
            (
                "my.bucket", "auto", "https://acc.r2.cloudflarestorage.com", .virtual,
                "https://acc.r2.cloudflarestorage.com/my.bucket/"
            ),
            ("my.bucket", "us-east-1", "http://s3.example.com", .virtual, "http://my.bucket.s3.example.com/"),
            ("my-bucket", "us-east-1", "http://127.0.0.1:9000", .virtual, "http://127.0.0.1:9000/my-bucket/"),
            ("my-bucket", "us-east-1", "http://[::1]:9000", .virtual, "http://[::1]:9000/my-bucket/"),
            ("my-bucket", "us-east-1", "http://localhost:9000", .virtual, "http://my-bucket.localhost:9000/"),
            ("my-bucket", "us-east-1", "https://S3.Example.com:443", .path, "https://S3.Example.com:443/my-bucket/"),
            ("my-bucket", "us-east-1", "https://cdn.example.com/media", .bucketHost, "https://cdn.example.com/media/"),
        ] as [(String, String, String?, S3Addressing, String)])
    func endpointsResolveAsBotocoreAddressesThem(
        bucket: String, region: String, endpoint: String?, addressing: S3Addressing, expected: String
    ) throws {
        let location = try S3Endpoint.resolve(
            bucket: bucket, region: region, endpoint: endpoint, addressing: addressing)
        #expect("\(location.scheme)://\(location.authority)\(location.keyPrefix)" == expected)
    }

    @Test func aGETOnTheGlobalHostMatchesBotocore() throws {
        let signer = S3Presigner(
            credentials: SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "SECRET"), crypto: crypto)
        let url = try signer.presign(
            ObjectSignRequest(method: "GET", bucket: "my-bucket", key: "a b/c", expiresSeconds: 900, signingTime: at))
        #expect(
            url == "https://my-bucket.s3.amazonaws.com/a%20b/c?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKID%2F20250115%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20250115T123456Z"
                + "&X-Amz-Expires=900&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=72adefbcc319faaada672e78c47ff1951fee32686736b6041fd25d050a965762")
    }

    @Test func anR2UploadWithSessionTokenSignsTypeExactLengthAndIfNoneMatchAsBotocore() throws {
        let signer = S3Presigner(
            credentials: SigV4Credentials(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                sessionToken: "FwoGZXIvYXdzE+tok/en=="),
            region: "auto", endpoint: "https://0123456789abcdef.r2.cloudflarestorage.com", addressing: .virtual,
            crypto: crypto)
        let url = try signer.presign(
            ObjectSignRequest(
                method: "PUT", bucket: "sp-bucket", key: "with space/a b.mp4", expiresSeconds: 900, signingTime: at,
                headers: S3Presigner.uploadHeaders(
                    contentType: "video/mp4", declaredBytes: 1_048_576, maxBytes: 1 << 30)))
        #expect(
            url == "https://sp-bucket.0123456789abcdef.r2.cloudflarestorage.com/with%20space/a%20b.mp4"
                + "?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20250115%2Fauto%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20250115T123456Z&X-Amz-Expires=900"
                + "&X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bif-none-match"
                + "&X-Amz-Security-Token=FwoGZXIvYXdzE%2Btok%2Fen%3D%3D"
                + "&X-Amz-Signature=3b8b21b96f1d86653546842c71d097e5262e8fea4ee182f7f5ffef53d2bbd4a0")
    }

    @Test func aCustomEndpointKeepsItsSpellingInTheURLButSignsTheNormalisedHost() throws {
        let signer = S3Presigner(
            credentials: SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "SECRET"),
            endpoint: "https://S3.Example.com:443", addressing: .path, crypto: crypto)
        let request = ObjectSignRequest(method: "GET", bucket: "b-1", key: "k", expiresSeconds: 60, signingTime: at)
        #expect(try signer.presign(request).hasPrefix("https://S3.Example.com:443/b-1/k?"))
        #expect(try signer.canonicalRequest(for: request).contains("\nhost:s3.example.com\n"))
    }

    @Test func uploadHeadersAreContentTypeTheExactDeclaredLengthAndIfNoneMatchStar() {
        let headers = S3Presigner.uploadHeaders(contentType: "video/mp4", declaredBytes: 42, maxBytes: 100)
        #expect(headers.map(\.name) == ["Content-Type", "Content-Length", "If-None-Match"])
        #expect(headers.map(\.value) == ["video/mp4", "42", "*"])
        let unsized = S3Presigner.uploadHeaders(contentType: "image/jpeg", declaredBytes: nil, maxBytes: 100)
        #expect(unsized.map(\.name) == ["Content-Type", "If-None-Match"])
    }

    @Test func emptyAndOverlongKeysAreRefusedBeforeSigning() {
        let signer = S3Presigner(
            credentials: SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "SECRET"), crypto: crypto)
        for key in ["", String(repeating: "é", count: 513)] {
            #expect(throws: ObjectSignError.self) {
                try signer.presign(
                    ObjectSignRequest(method: "GET", bucket: "b-1", key: key, expiresSeconds: 60, signingTime: at))
            }
        }
    }

    @Test func bucketHostAddressingWithoutAnEndpointIsRefused() {
        #expect(throws: ObjectSignError.self) {
            try S3Endpoint.resolve(bucket: "b-1", region: "us-east-1", endpoint: nil, addressing: .bucketHost)
        }
    }

    @Test func theOperatorTimestampFormatParsesToUnixSeconds() {
        #expect(SigningTimestamp.parseISO8601("2025-01-15T12:34:56Z") == at)
        #expect(SigningTimestamp.parseISO8601("2025-01-15 12:34:56Z") == nil)
        #expect(SigningTimestamp.parseISO8601("2025-02-30T00:00:00Z") == nil)
        #expect(SigningTimestamp.parseISO8601("2025-01-15T12:34:56+01:00") == nil)
    }
}
