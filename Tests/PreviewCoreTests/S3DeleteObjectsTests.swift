import PreviewCore
import PreviewCrypto
import Testing

/// The DeleteObjects body we send and how its answer is read (no server).
@Suite struct S3DeleteObjectsTests {
    static let quietPrefix =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        + "<Quiet>true</Quiet>"

    static func result(_ entries: String) -> [UInt8] {
        Array(
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\(entries)</DeleteResult>").utf8)
    }

    @Test func theBodyListsEveryKeyInQuietMode() {
        let body = String(decoding: S3DeleteObjects.requestBody(keys: ["a/1.mp4", "b/2.jpg"]), as: UTF8.self)
        #expect(
            body == Self.quietPrefix + "<Object><Key>a/1.mp4</Key></Object><Object><Key>b/2.jpg</Key></Object></Delete>"
        )
    }

    @Test func markupAndControlCharactersInAKeyAreEscapedSoTheKeyCannotEndItsElement() {
        let hostile = "x</Key></Object><Object><Key>victim&\"'<>\r\n\t\u{7F}\u{85}é"
        let body = String(decoding: S3DeleteObjects.requestBody(keys: [hostile]), as: UTF8.self)
        #expect(
            body == Self.quietPrefix + "<Object><Key>x&lt;/Key&gt;&lt;/Object&gt;&lt;Object&gt;&lt;Key&gt;victim"
                + "&amp;&quot;&apos;&lt;&gt;&#13;&#10;&#9;&#127;&#133;é</Key></Object></Delete>")
        #expect(body.components(separatedBy: "<Object>").count == 2, "exactly one object element")
        #expect(StoreErrorBody.decodeEntities(S3DeleteObjects.escape(hostile)) == hostile)
    }

    @Test func keysXMLCannotCarryAreRecognised() {
        #expect(S3DeleteObjects.canCarry("plain/é key+~%41.mp4"))
        #expect(S3DeleteObjects.canCarry("tab\tlf\ncr\r"))
        #expect(!S3DeleteObjects.canCarry("nul\u{0}"))
        #expect(!S3DeleteObjects.canCarry("bell\u{7}"))
        #expect(!S3DeleteObjects.canCarry("esc\u{1B}[0m"))
        #expect(!S3DeleteObjects.canCarry("nonchar\u{FFFF}"))
    }

    @Test func keysTheResultDoesNotReportAreDeletedAndNoSuchKeyCountsAsDeleted() {
        let body = Self.result(
            "<Error><Key>b</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>"
                + "<Error><Key>c</Key><Code>NoSuchKey</Code><Message>gone</Message></Error>")
        #expect(
            S3DeleteObjects.outcomes(keys: ["a", "b", "c"], resultBody: body) == [
                .deleted, .failed("AccessDenied (Access Denied)"), .deleted,
            ])
        #expect(S3DeleteObjects.outcomes(keys: ["a"], resultBody: Self.result("")) == [.deleted])
    }

    @Test func anEmptySelfClosedResultAndVerboseDeletedEntriesMeanEverythingIsGone() {
        let empty: [UInt8] = Array("<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"/>".utf8)
        #expect(S3DeleteObjects.outcomes(keys: ["a", "b"], resultBody: empty) == [.deleted, .deleted])
        let verbose = Self.result("<Deleted><Key>a</Key></Deleted>\n  <Deleted><Key>b</Key></Deleted>")
        #expect(S3DeleteObjects.outcomes(keys: ["a", "b"], resultBody: verbose) == [.deleted, .deleted])
    }

    @Test func reportedKeysAreEntityDecodedAndMatchedByteForByte() {
        let nfc = "v/\u{E9}.mp4"
        let nfd = "v/e\u{301}.mp4"
        let body = Self.result(
            "<Error><Key>a&amp;b &lt;c&gt;&#13;</Key><Code>InternalError</Code></Error>"
                + "<Error><Key>\(nfd)</Key><Code>AccessDenied</Code></Error>")
        #expect(
            S3DeleteObjects.outcomes(keys: ["a&b <c>\r", nfc, nfd], resultBody: body) == [
                .failed("InternalError"), .deleted, .failed("AccessDenied"),
            ])
    }

    @Test(arguments: [
        "", "not xml at all", "<html><body>502 Bad Gateway</body></html>",
        "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code><Message>Reduce</Message></Error>",
        "<DeleteResult><Error><Key>a</Key><Code>AccessDenied</Code></Error>",
        "<DeleteResult><Error><Code>AccessDenied</Code></Error></DeleteResult>",
        "<DeleteResult><Error><Key>a<b/></Key></Error></DeleteResult>",
        "<DeleteResult></DeleteResult>trailing",
        "<DeleteResultX></DeleteResultX>",
        "<DeleteResult><Surprise/></DeleteResult>",
        "\u{0}\u{1}\u{FF}",
    ])
    func aBodyThatIsNotADeleteResultFailsEveryKey(body: String) {
        let outcomes = S3DeleteObjects.outcomes(keys: ["a", "b"], resultBody: Array(body.utf8))
        #expect(outcomes.count == 2)
        for outcome in outcomes {
            guard case .failed(let reason) = outcome else {
                Issue.record("a key was counted as deleted for \(body.debugDescription)")
                continue
            }
            #expect(reason.hasPrefix("the DeleteObjects answer is not a DeleteResult"))
        }
    }

    @Test func invalidUTF8AndRandomBytesNeverCountAKeyAsDeleted() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            #expect(!S3DeleteObjects.outcomes(keys: ["k"], resultBody: bytes).contains(.deleted))
        }
    }

    @Test func aBucketRequestIsSignedOnTheBucketPathWithTheDeleteParameter() throws {
        let credentials = SigV4Credentials(accessKeyId: "AKID", secretAccessKey: "secret")
        let request = ObjectSignRequest(
            method: "POST", bucket: "bkt", key: "", expiresSeconds: 60, signingTime: 1_700_000_000,
            headers: [("Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="), ("Content-Type", "application/xml")],
            query: [("delete", "")])
        let pathStyle = S3Presigner(
            credentials: credentials, endpoint: "http://127.0.0.1:9000", addressing: .path, crypto: OpenSSLCrypto())
        let url = try pathStyle.presignBucket(request)
        #expect(url.hasPrefix("http://127.0.0.1:9000/bkt?delete=&X-Amz-Algorithm=AWS4-HMAC-SHA256&"))
        #expect(url.contains("X-Amz-SignedHeaders=content-md5%3Bcontent-type%3Bhost&"))
        let virtual = S3Presigner(credentials: credentials, crypto: OpenSSLCrypto())
        #expect(try virtual.presignBucket(request).hasPrefix("https://bkt.s3.amazonaws.com/?delete=&"))
        var named = request
        named.key = "k"
        #expect(throws: ObjectSignError.self) { try pathStyle.presignBucket(named) }
    }
}
