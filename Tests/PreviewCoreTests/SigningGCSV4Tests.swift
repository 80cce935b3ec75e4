import PreviewCrypto
import Testing

@testable import PreviewCore

/// GCS V4 signing. HMAC URLs are compared with the reference implementation of Google's
/// published V4 algorithm in scripts/conformance/sdk_urls.py (no SDK signs GOOG4-HMAC offline);
/// RSA URLs are compared with google-cloud-storage by the conformance suite.
@Suite struct SigningGCSV4Tests {
    let crypto = OpenSSLCrypto()
    /// 2025-01-15T12:34:56Z.
    let at: Int64 = 1_736_944_496
    let hmac = GCSV4Credentials.hmac(
        accessId: "GOOG1EXAMPLEHMACACCESSID0123456789", secret: "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ")

    @Test func anHMACWriteOnceUploadURLWithARangeMatchesTheReferenceImplementation() throws {
        let signer = try GCSV4Presigner(credentials: hmac, crypto: crypto)
        let url = try signer.presign(
            ObjectSignRequest(
                method: "PUT", bucket: "sp-bucket", key: "with space/a b.mp4", expiresSeconds: 900, signingTime: at,
                headers: GCSV4Presigner.uploadHeaders(contentType: "video/mp4", declaredBytes: nil, maxBytes: 1_048_576)
            ))
        #expect(
            url == "https://storage.googleapis.com/sp-bucket/with%20space/a%20b.mp4?X-Goog-Algorithm=GOOG4-HMAC-SHA256"
                + "&X-Goog-Credential=GOOG1EXAMPLEHMACACCESSID0123456789%2F20250115%2Fauto%2Fstorage%2Fgoog4_request"
                + "&X-Goog-Date=20250115T123456Z&X-Goog-Expires=900"
                + "&X-Goog-SignedHeaders=content-type%3Bhost%3Bx-goog-content-length-range%3Bx-goog-if-generation-match"
                + "&X-Goog-Signature=f59ef6401a2c4677db2b6b39be69f724eee86cad1805de55f866d4e9e3d5c032")
    }

    @Test func aResumableStartOnACDNHostSignsTheHostAndTheResumableHeader() throws {
        let signer = try GCSV4Presigner(
            credentials: hmac, endpoint: "https://media.example.com", addressing: .bucketHost, crypto: crypto)
        let url = try signer.presign(
            ObjectSignRequest(
                method: "POST", bucket: "sp-bucket", key: "clips/simple.mp4", expiresSeconds: 900, signingTime: at,
                headers: [("x-goog-resumable", "start")]))
        #expect(
            url == "https://media.example.com/clips/simple.mp4?X-Goog-Algorithm=GOOG4-HMAC-SHA256"
                + "&X-Goog-Credential=GOOG1EXAMPLEHMACACCESSID0123456789%2F20250115%2Fauto%2Fstorage%2Fgoog4_request"
                + "&X-Goog-Date=20250115T123456Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host%3Bx-goog-resumable"
                + "&X-Goog-Signature=7e4e9d2c045190df345b28d16d912df5f980db0e53fe7d60b9530d602f086990")
    }

    @Test func theRSASignerSeesTheStringToSignAndItsBytesBecomeLowerHex() throws {
        let signer = try GCSV4Presigner(
            credentials: .serviceAccount(email: "sa@p.iam.gserviceaccount.com", sign: { _ in [0xAB, 0x01] }),
            addressing: .virtual, crypto: crypto)
        let request = ObjectSignRequest(
            method: "GET", bucket: "sp-bucket", key: "caf\u{E9}/a+b", expiresSeconds: 60, signingTime: at,
            headers: [("X-Goog-Meta-Note", "  two   words ")], query: [("response-content-disposition", "inline")])
        #expect(
            try signer.canonicalRequest(for: request) == """
                GET
                /caf%C3%A9/a%2Bb
                X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa%40p.iam.gserviceaccount.com%2F20250115%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20250115T123456Z&X-Goog-Expires=60&X-Goog-SignedHeaders=host%3Bx-goog-meta-note&response-content-disposition=inline
                host:sp-bucket.storage.googleapis.com
                x-goog-meta-note:two words

                host;x-goog-meta-note
                UNSIGNED-PAYLOAD
                """)
        #expect(
            try signer.stringToSign(for: request).hasPrefix(
                "GOOG4-RSA-SHA256\n20250115T123456Z\n20250115/auto/storage/goog4_request\n"))
        #expect(try signer.presign(request).hasSuffix("&X-Goog-Signature=ab01"))
        #expect(
            try signer.presign(request).hasPrefix(
                "https://sp-bucket.storage.googleapis.com/caf%C3%A9/a%2Bb?X-Goog-Algorithm="))
    }

    @Test func nfcAndNFDSpellingsOfAKeySignDifferentBytes() throws {
        let signer = try GCSV4Presigner(credentials: hmac, crypto: crypto)
        func url(_ key: String) throws -> String {
            try signer.presign(
                ObjectSignRequest(method: "GET", bucket: "b-1", key: key, expiresSeconds: 60, signingTime: at))
        }
        #expect(try url("caf\u{E9}").contains("/b-1/caf%C3%A9?"))
        #expect(try url("cafe\u{301}").contains("/b-1/cafe%CC%81?"))
        #expect(try url("a/./b/../c//d/").contains("/b-1/a/./b/../c//d/?"))
    }

    @Test func uploadHeadersAreContentTypeAZeroToMaxLengthRangeAndAGenerationMatchOfZero() {
        for declared in [5, nil] as [Int64?] {
            let headers = GCSV4Presigner.uploadHeaders(
                contentType: "video/mp4", declaredBytes: declared, maxBytes: 1000)
            #expect(
                headers.map(\.name) == ["Content-Type", "x-goog-content-length-range", "x-goog-if-generation-match"])
            #expect(headers.map(\.value) == ["video/mp4", "0,1000", "0"])
        }
    }

    @Test func endpointsWithPathsAndBucketHostWithoutEndpointAreRefused() {
        #expect(throws: ObjectSignError.self) {
            try GCSV4Presigner(credentials: hmac, endpoint: "https://example.com/storage", crypto: crypto)
        }
        #expect(throws: ObjectSignError.self) {
            try GCSV4Presigner(credentials: hmac, addressing: .bucketHost, crypto: crypto)
        }
    }

    @Test func signerParametersAndAHostHeaderCannotBeGiven() throws {
        let signer = try GCSV4Presigner(credentials: hmac, crypto: crypto)
        #expect(throws: ObjectSignError.self) {
            try signer.presign(
                ObjectSignRequest(
                    method: "GET", bucket: "b-1", key: "k", expiresSeconds: 60, signingTime: at,
                    query: [("X-Goog-Date", "x")]))
        }
        #expect(throws: ObjectSignError.self) {
            try signer.presign(
                ObjectSignRequest(
                    method: "GET", bucket: "b-1", key: "k", expiresSeconds: 60, signingTime: at,
                    headers: [("Host", "evil.example.com")]))
        }
        #expect(throws: ObjectSignError.self) {
            try signer.presign(
                ObjectSignRequest(method: "GET", bucket: "b-1", key: "k", expiresSeconds: 604_801, signingTime: at))
        }
    }
}
