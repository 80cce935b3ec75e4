import PreviewCrypto
import Testing

@testable import PreviewCore

/// An endpoint written with its scheme's default port (`https://…:443`, `http://…:80`). Clients
/// leave that port out of `Host` and the store signs the `Host` that arrives, so both presigners
/// sign `host` without it (`StorageEndpointURL.requestAuthority`). S3 URLs keep the endpoint's
/// spelling, as botocore 1.43.127 does (expected values from it); GCS URLs leave the port out,
/// giving the URL of the endpoint written without it (expected values from the reference
/// GOOG4-HMAC implementation in scripts/conformance/sdk_urls.py).
@Suite struct SigningDefaultPortTests {
    let crypto = OpenSSLCrypto()
    /// 2025-01-15T12:34:56Z.
    let at: Int64 = 1_736_944_496
    let hmac = GCSV4Credentials.hmac(
        accessId: "GOOG1EXAMPLEHMACACCESSID0123456789", secret: "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ")
    static let gcsQuery =
        "X-Goog-Algorithm=GOOG4-HMAC-SHA256"
        + "&X-Goog-Credential=GOOG1EXAMPLEHMACACCESSID0123456789%2F20250115%2Fauto%2Fstorage%2Fgoog4_request"
        + "&X-Goog-Date=20250115T123456Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host"

    @Test(
        arguments: [
            ("https://storage.googleapis.com:443", "storage.googleapis.com"),
            ("http://storage.googleapis.com:80", "storage.googleapis.com"),
            ("https://S3.Example.com:443/base", "S3.Example.com"),
            ("http://[::1]:80", "[::1]"),
            ("https://h.example", "h.example"),
            ("https://h.example:8443", "h.example:8443"),
            ("http://h.example:443", "h.example:443"),
            ("https://h.example:80", "h.example:80"),
            ("http://127.0.0.1:9000", "127.0.0.1:9000"),
        ])
    func theRequestAuthorityLeavesOutOnlyTheSchemesDefaultPort(endpoint: String, expected: String) throws {
        let url = try #require(StorageEndpointURL(endpoint))
        #expect(url.requestAuthority == expected)
    }

    private func gcsGET(endpoint: String?, addressing: GCSAddressing = .path) throws -> (url: String, canonical: String)
    {
        let signer = try GCSV4Presigner(credentials: hmac, endpoint: endpoint, addressing: addressing, crypto: crypto)
        let request = ObjectSignRequest(
            method: "GET", bucket: "sp-bucket", key: "clips/simple.mp4", expiresSeconds: 900, signingTime: at)
        return (try signer.presign(request), try signer.canonicalRequest(for: request))
    }

    @Test func aGCSEndpointWithPort443GivesTheURLOfTheEndpointWithoutIt() throws {
        let expected =
            "https://storage.googleapis.com/sp-bucket/clips/simple.mp4?\(Self.gcsQuery)"
            + "&X-Goog-Signature=cb2925aedf42848d6c9c12a05723e98303a34e6eedba7ba8993b87751c620fd3"
        let withPort = try gcsGET(endpoint: "https://storage.googleapis.com:443")
        #expect(withPort.url == expected)
        #expect(withPort.canonical.contains("\nhost:storage.googleapis.com\n"))
        #expect(try gcsGET(endpoint: nil).url == expected)
    }

    @Test func aGCSEndpointWithPort80OverHTTPGivesTheURLOfTheEndpointWithoutIt() throws {
        #expect(
            try gcsGET(endpoint: "http://127.0.0.1:80").url
                == "http://127.0.0.1/sp-bucket/clips/simple.mp4?\(Self.gcsQuery)"
                + "&X-Goog-Signature=5ca3de5245248f66dcc726569a05df7bb79b1570fcee5e540557c483b7ecfa1f")
    }

    @Test func aVirtualHostedGCSURLOnPort443SignsTheBucketHostWithoutThePort() throws {
        let signed = try gcsGET(endpoint: "https://storage.googleapis.com:443", addressing: .virtual)
        #expect(signed.url.hasPrefix("https://sp-bucket.storage.googleapis.com/clips/simple.mp4?"))
        #expect(signed.canonical.contains("\nhost:sp-bucket.storage.googleapis.com\n"))
    }

    @Test func aGCSEndpointWithAnotherPortKeepsItInTheURLAndTheSignedHost() throws {
        let signed = try gcsGET(endpoint: "https://storage.googleapis.com:8443")
        #expect(
            signed.url
                == "https://storage.googleapis.com:8443/sp-bucket/clips/simple.mp4?\(Self.gcsQuery)"
                + "&X-Goog-Signature=8eb15dff823ce5bb093e3d69561b8f3231525883ff15dfbda5986edc40bf6a34")
        #expect(signed.canonical.contains("\nhost:storage.googleapis.com:8443\n"))
    }

    @Test(
        arguments: [
            ("https://s3.example.com:443", "https://s3.example.com:443/sp-bucket/a.mp4?", "s3.example.com"),
            ("http://minio.local:80", "http://minio.local:80/sp-bucket/a.mp4?", "minio.local"),
            ("http://minio.local:9000", "http://minio.local:9000/sp-bucket/a.mp4?", "minio.local:9000"),
        ])
    func anS3EndpointKeepsItsSpellingInTheURLAndSignsTheHostWithoutTheDefaultPort(
        endpoint: String, urlPrefix: String, signedHost: String
    ) throws {
        let signer = S3Presigner(
            credentials: SigV4Credentials(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            endpoint: endpoint, addressing: .path, crypto: crypto)
        let request = ObjectSignRequest(
            method: "PUT", bucket: "sp-bucket", key: "a.mp4", expiresSeconds: 900, signingTime: at)
        #expect(try signer.presign(request).hasPrefix(urlPrefix))
        #expect(try signer.canonicalRequest(for: request).contains("\nhost:\(signedHost)\n"))
    }

    @Test func anS3URLOnPort443CarriesBotocoresSignature() throws {
        let signer = S3Presigner(
            credentials: SigV4Credentials(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            endpoint: "https://s3.example.com:443", addressing: .path, crypto: crypto)
        let url = try signer.presign(
            ObjectSignRequest(method: "PUT", bucket: "sp-bucket", key: "a.mp4", expiresSeconds: 900, signingTime: at))
        #expect(
            url == "https://s3.example.com:443/sp-bucket/a.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20250115%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20250115T123456Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=bc89359266c5db4c468a1afb113517b7b4818b5afa62910ebebd5d96448c2c89")
    }
}
