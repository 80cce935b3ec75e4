import PreviewCrypto
import Testing

@testable import PreviewCore

/// Published AWS vectors and golden URLs produced by botocore 1.43 (`S3SigV4QueryAuth`
/// with a fixed clock), so our presigned URLs stay byte-identical to the SDK's.
@Suite struct SigningSigV4VectorTests {
    let crypto = OpenSSLCrypto()
    let docCredentials = SigV4Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")

    /// 2013-05-24T00:00:00Z.
    let docTime: Int64 = 1_369_353_600

    var docRequest: SigV4PresignRequest {
        SigV4PresignRequest(
            method: "GET", scheme: "https", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            region: "us-east-1", service: "s3", signingTime: docTime, expiresSeconds: 86_400)
    }

    @Test func theAWSDocumentationPresignedGETExampleProducesItsPublishedSignature() throws {
        let url = try SigV4Signer(credentials: docCredentials, crypto: crypto).presign(docRequest)
        #expect(
            url == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test func theAWSDocumentationExampleHasItsPublishedCanonicalRequestAndStringToSign() throws {
        let signer = SigV4Signer(credentials: docCredentials, crypto: crypto)
        #expect(
            try signer.canonicalRequest(for: docRequest) == """
                GET
                /test.txt
                X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host
                host:examplebucket.s3.amazonaws.com

                host
                UNSIGNED-PAYLOAD
                """)
        #expect(
            try signer.stringToSign(for: docRequest) == """
                AWS4-HMAC-SHA256
                20130524T000000Z
                20130524/us-east-1/s3/aws4_request
                3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04
                """)
    }

    @Test func theSigningKeyDerivationMatchesTheAWSDocumentationExample() {
        let key = SigV4Canonical.signingKey(
            secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", date: "20120215", region: "us-east-1",
            service: "iam", crypto: crypto)
        #expect(Hex.encode(key) == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    @Test func theSigV4TestSuiteGetVanillaCaseSignsAsPublished() {
        let canonical = SigV4Canonical.request(
            method: "GET", uri: SigV4Canonical.uri(Array("/".utf8)), query: "",
            headers: SigV4Canonical.headers([("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")]),
            payloadHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let scope = SigV4Canonical.scope(date: "20150830", region: "us-east-1", service: "service")
        let stringToSign = SigV4Canonical.stringToSign(
            amzDate: "20150830T123600Z", scope: scope, canonicalRequest: canonical, crypto: crypto)
        #expect(stringToSign.hasSuffix("bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"))
        let key = SigV4Canonical.signingKey(
            secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", date: "20150830", region: "us-east-1",
            service: "service", crypto: crypto)
        let signature = SigV4Canonical.signature(signingKey: key, stringToSign: stringToSign, crypto: crypto)
        #expect(Hex.encode(signature) == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func aPutWithSignedHeadersSessionTokenAndAwkwardKeyMatchesBotocoreByteForByte() throws {
        let key = "/media/a b+c~d%e!$'()*,;:@[]=&?#/./x/../y//z/\u{E9}e\u{301}😀.mp4"
        let signer = SigV4Signer(
            credentials: SigV4Credentials(
                accessKeyId: "local-key", secretAccessKey: "local-secret", sessionToken: "tok/en+="),
            crypto: crypto)
        let url = try signer.presign(
            SigV4PresignRequest(
                method: "PUT", scheme: "http", host: "LocalHost:9000", path: key,
                signedHeaders: [
                    ("Content-Type", "video/mp4"), ("Content-Length", "1048576"),
                    ("X-Amz-Meta-Note", "  hello   big  world "),
                ],
                region: "local", service: "s3", signingTime: 1_709_251_199, expiresSeconds: 900))
        // botocore keeps the URL's host spelling; the signed host is lower-cased by both.
        #expect(
            url == "http://localhost:9000"
                + "/media/a%20b%2Bc~d%25e%21%24%27%28%29%2A%2C%3B%3A%40%5B%5D%3D%26%3F%23/./x/../y//z/%C3%A9e%CC%81%F0%9F%98%80.mp4"
                + "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=local-key%2F20240229%2Flocal%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20240229T235959Z&X-Amz-Expires=900"
                + "&X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost%3Bx-amz-meta-note"
                + "&X-Amz-Security-Token=tok%2Fen%2B%3D"
                + "&X-Amz-Signature=83ca701f71770357d6d4e1055e69aa54f546401259fa300ca4194d3c9a17cc26")
    }

    @Test func extraQueryParametersComeFirstAndADefaultPortIsDroppedAsBotocoreSigns() throws {
        let url = try SigV4Signer(credentials: docCredentials, crypto: crypto).presign(
            SigV4PresignRequest(
                method: "GET", scheme: "https", host: "bucket.example.com:443", path: "/clips/1.mp4",
                extraQuery: [
                    ("response-content-type", "video/mp4"),
                    ("response-content-disposition", "inline; filename=\"1.mp4\""),
                ],
                region: "us-west-2", service: "s3", signingTime: 1_924_948_800, expiresSeconds: 604_800))
        #expect(
            url == "https://bucket.example.com/clips/1.mp4"
                + "?response-content-type=video%2Fmp4"
                + "&response-content-disposition=inline%3B%20filename%3D%221.mp4%22"
                + "&X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20301231%2Fus-west-2%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20301231T120000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=9f96c3cd3302c271b5b2301f0f594c424f40e5d21e960a5a6258196c55167a5a")
    }
}
