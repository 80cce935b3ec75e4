import Foundation
import PreviewCrypto
import Testing

@testable import PreviewCore

/// Presign → verify round trips, and every way a URL can be tampered with or misused.
@Suite struct SigningSigV4VerifierTests {
    let crypto = OpenSSLCrypto()
    /// 2024-02-29T23:59:59Z.
    let signedAt: Int64 = 1_709_251_199
    let expires = 900
    let verifier = SigV4Verifier(region: "local", service: "s3", allowedClockSkew: 60, crypto: OpenSSLCrypto())

    struct Signed {
        var host: String
        var path: String
        var query: String
        var headers: HTTPHeaders
    }

    func presign(
        method: String = "PUT", path: String = "/media/42/clip.mp4",
        headers: [(name: String, value: String)] = [("Content-Type", "video/mp4"), ("Content-Length", "1048576")],
        extraQuery: [(name: String, value: String)] = [], sessionToken: String? = nil
    ) throws -> Signed {
        let signer = SigV4Signer(
            credentials: SigV4Credentials(
                accessKeyId: "local-key", secretAccessKey: "local-secret", sessionToken: sessionToken),
            crypto: crypto)
        let url = try signer.presign(
            SigV4PresignRequest(
                method: method, scheme: "http", host: "127.0.0.1:8080", path: path, signedHeaders: headers,
                extraQuery: extraQuery, region: "local", service: "s3", signingTime: signedAt,
                expiresSeconds: expires))
        let afterScheme = url.dropFirst("http://".count)
        let slash = try #require(afterScheme.firstIndex(of: "/"))
        let question = try #require(afterScheme.firstIndex(of: "?"))
        let host = String(afterScheme[..<slash])
        return Signed(
            host: host, path: String(afterScheme[slash..<question]),
            query: String(afterScheme[afterScheme.index(after: question)...]),
            headers: HTTPHeaders([("Host", host)] + headers.map { ($0.name, $0.value) }))
    }

    func verify(
        _ signed: Signed, method: String = "PUT", now: Int64? = nil, verifier: SigV4Verifier? = nil
    ) -> Result<SignedURLInfo, SigV4VerificationFailure> {
        (verifier ?? self.verifier).verify(
            method: method, rawPath: signed.path, rawQuery: signed.query, headers: signed.headers,
            now: now ?? signedAt + 1, secretForAccessKey: { $0 == "local-key" ? "local-secret" : nil })
    }

    func failure(_ result: Result<SignedURLInfo, SigV4VerificationFailure>) -> SigV4VerificationFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    func replacing(_ signed: Signed, query old: String, with new: String) -> Signed {
        var copy = signed
        copy.query = signed.query.replacingOccurrences(of: old, with: new)
        return copy
    }

    // MARK: round trips

    @Test func aPresignedPutVerifiesAndReportsWhatItBinds() throws {
        let info = try verify(presign()).get()
        #expect(info.accessKeyId == "local-key")
        #expect(info.method == "PUT")
        #expect(info.path == Array("/media/42/clip.mp4".utf8))
        #expect(
            info.signedHeaders
                == ["host": "127.0.0.1:8080", "content-type": "video/mp4", "content-length": "1048576"])
        #expect(info.signingTime == signedAt)
        #expect(info.expiresAt == signedAt + 900)
        #expect(info.sessionToken == nil)
        #expect(info.extraQuery.isEmpty)
    }

    @Test func anAwkwardKeyRoundTripsToItsExactBytes() throws {
        let key = "/media/a b+c~d%e!$'()*,;:@[]=&?#/./x/../y//z/\u{E9}e\u{301}😀.mp4"
        let info = try verify(presign(method: "GET", path: key, headers: []), method: "GET").get()
        #expect(info.path == Array(key.utf8))
    }

    @Test func equivalentPercentEncodingsOfThePathVerifyAlike() throws {
        var signed = try presign(path: "/a~b/caf\u{E9}")
        #expect(signed.path == "/a~b/caf%C3%A9")
        signed.path = "/a%7Eb/caf%c3%a9"
        #expect(throws: Never.self) { try verify(signed).get() }
    }

    @Test func aPlusInTheQueryVerifiesAsTheSpaceItStandsFor() throws {
        let signed = try presign(extraQuery: [("response-content-disposition", "inline; x")])
        let info = try verify(replacing(signed, query: "inline%3B%20x", with: "inline%3B+x")).get()
        #expect(info.extraQuery == [SigV4QueryParameter(name: "response-content-disposition", value: "inline; x")])
    }

    @Test func theOrderOfQueryParametersDoesNotMatter() throws {
        var signed = try presign()
        signed.query = signed.query.split(separator: "&").reversed().joined(separator: "&")
        #expect(throws: Never.self) { try verify(signed).get() }
    }

    @Test func aSessionTokenIsSignedAndReported() throws {
        let signed = try presign(sessionToken: "tok/en+=")
        #expect(signed.query.contains("X-Amz-Security-Token=tok%2Fen%2B%3D"))
        #expect(try verify(signed).get().sessionToken == "tok/en+=")
        #expect(failure(verify(replacing(signed, query: "tok%2Fen", with: "tok%2FeN"))) == .signatureMismatch)
    }

    @Test func headerNamesMatchCaseInsensitivelyAndValuesAreNormalised() throws {
        var signed = try presign()
        signed.headers = HTTPHeaders([
            ("HOST", "127.0.0.1:8080"), ("content-TYPE", "  video/mp4 "), ("CONTENT-LENGTH", "1048576"),
        ])
        #expect(throws: Never.self) { try verify(signed).get() }
    }

    @Test func theVerifiersCanonicalRequestEqualsTheSigners() throws {
        let request = SigV4PresignRequest(
            method: "PUT", scheme: "http", host: "127.0.0.1:8080", path: "/x y",
            signedHeaders: [("Content-Type", "video/mp4")], region: "local", service: "s3", signingTime: signedAt,
            expiresSeconds: expires)
        let signer = SigV4Signer(
            credentials: SigV4Credentials(accessKeyId: "local-key", secretAccessKey: "local-secret"), crypto: crypto)
        let signed = try presign(path: "/x y", headers: [("Content-Type", "video/mp4")])
        let canonical = try verifier.canonicalRequest(
            method: "PUT", rawPath: signed.path, rawQuery: signed.query, headers: signed.headers
        ).get()
        #expect(canonical == (try signer.canonicalRequest(for: request)))
    }

    @Test func aRequestHeadVerifiesLikeItsParts() throws {
        let signed = try presign()
        let head = HTTPRequestHead(method: "PUT", path: signed.path, rawQuery: signed.query, headers: signed.headers)
        let info = try verifier.verify(head, now: signedAt, secretForAccessKey: { _ in "local-secret" }).get()
        #expect(info.path == Array("/media/42/clip.mp4".utf8))
        let other = HTTPRequestHead(method: "GET", path: signed.path, rawQuery: signed.query, headers: signed.headers)
        #expect(
            failure(verifier.verify(other, now: signedAt, secretForAccessKey: { _ in "local-secret" }))
                == .signatureMismatch)
    }

    // MARK: tampering

    @Test func aChangedPathByteFailsTheSignature() throws {
        var signed = try presign()
        signed.path = "/media/43/clip.mp4"
        #expect(failure(verify(signed)) == .signatureMismatch)
    }

    @Test func anotherMethodFailsTheSignature() throws {
        #expect(failure(verify(try presign(), method: "GET")) == .signatureMismatch)
    }

    @Test func aChangedExpiryFailsTheSignature() throws {
        let signed = try presign()
        #expect(
            failure(verify(replacing(signed, query: "X-Amz-Expires=900", with: "X-Amz-Expires=901")))
                == .signatureMismatch)
    }

    @Test func aChangedTimeOfDayFailsTheSignature() throws {
        let signed = try presign()
        let tampered = replacing(signed, query: "X-Amz-Date=20240229T235959Z", with: "X-Amz-Date=20240229T235958Z")
        #expect(failure(verify(tampered)) == .signatureMismatch)
    }

    @Test func aDateOutsideTheCredentialScopeIsMalformed() throws {
        let signed = try presign()
        let tampered = replacing(signed, query: "X-Amz-Date=20240229T235959Z", with: "X-Amz-Date=20240301T000000Z")
        #expect(failure(verify(tampered)) == .malformed("X-Amz-Date does not match the credential scope date"))
    }

    @Test func aChangedSignatureDigitFailsTheSignature() throws {
        var signed = try presign()
        let last = signed.query.removeLast()
        signed.query.append(last == "0" ? "1" : "0")
        #expect(failure(verify(signed)) == .signatureMismatch)
    }

    @Test func aChangedSignedHeaderValueFailsTheSignature() throws {
        var signed = try presign()
        signed.headers.set("Content-Length", "1048577")
        #expect(failure(verify(signed)) == .signatureMismatch)
    }

    @Test func anAddedQueryParameterFailsTheSignature() throws {
        var signed = try presign()
        signed.query += "&response-content-type=text%2Fhtml"
        #expect(failure(verify(signed)) == .signatureMismatch)
    }

    @Test func aMissingSignedHeaderIsNamed() throws {
        var signed = try presign()
        signed.headers.remove("content-type")
        #expect(failure(verify(signed)) == .missingSignedHeader("content-type"))
    }

    @Test func anUnknownAccessKeyIsReported() throws {
        let signed = try presign()
        #expect(failure(verify(replacing(signed, query: "local-key%2F", with: "other-key%2F"))) == .unknownKey)
    }

    @Test func anotherRegionOrServiceIsMalformed() throws {
        let signed = try presign()
        let otherRegion = SigV4Verifier(region: "us-east-1", service: "s3", crypto: crypto)
        let otherService = SigV4Verifier(region: "local", service: "gcs", crypto: crypto)
        #expect(
            failure(verify(signed, verifier: otherRegion))
                == .malformed("credential scope local/s3 is not us-east-1/s3"))
        #expect(
            failure(verify(signed, verifier: otherService)) == .malformed("credential scope local/s3 is not local/gcs"))
    }

    // MARK: strict parsing

    @Test(arguments: [
        ("&X-Amz-Signature=", "&X-Amz-Signature=00&X-Amz-Signature="),
        ("X-Amz-Date=", "X-Amz-Date=20240229T235959Z&X-Amz-Date="),
        ("X-Amz-Expires=900", "X-Amz-Expires=0"),
        ("X-Amz-Expires=900", "X-Amz-Expires=604801"),
        ("X-Amz-Expires=900", "X-Amz-Expires=-1"),
        ("X-Amz-Expires=900", "X-Amz-Expires=%2B900"),
        ("X-Amz-Expires=900", "X-Amz-Expires="),
        ("X-Amz-Algorithm=AWS4-HMAC-SHA256", "X-Amz-Algorithm=AWS4-HMAC-SHA1"),
        ("X-Amz-Algorithm=AWS4-HMAC-SHA256&", ""),
        ("X-Amz-Credential=local-key%2F", "X-Amz-Credential=local%2Fkey%2F"),
        ("%2Faws4_request", "%2Faws4"),
        ("content-length%3Bcontent-type%3Bhost", "content-type%3Bcontent-length%3Bhost"),
        ("content-length%3Bcontent-type%3Bhost", "content-length%3Bcontent-type"),
        ("content-length%3Bcontent-type%3Bhost", "Content-Length%3Bcontent-type%3Bhost"),
        ("content-length%3Bcontent-type%3Bhost", "content-length%3B%3Bcontent-type%3Bhost"),
        ("X-Amz-Date=20240229T235959Z", "X-Amz-Date=20240229T235959"),
        ("X-Amz-Algorithm", "&X-Amz-Algorithm"),
        ("X-Amz-Algorithm=AWS4", "X-Amz-Algorithm=%ZZAWS4"),
    ])
    func aQueryThatIsNotStrictlyWellFormedIsMalformed(old: String, new: String) throws {
        let tampered = replacing(try presign(), query: old, with: new)
        #expect(tampered.query != (try presign()).query)
        guard case .malformed = failure(verify(tampered)) else {
            Issue.record("expected malformed for \(tampered.query)")
            return
        }
    }

    @Test func anUpperCaseOrShortSignatureIsMalformed() throws {
        let signed = try presign()
        let signature = try #require(signed.query.split(separator: "=").last)
        for bad in [signature.uppercased(), String(signature.dropLast(2))] {
            guard case .malformed = failure(verify(replacing(signed, query: String(signature), with: bad))) else {
                Issue.record("expected malformed for \(bad)")
                continue
            }
        }
    }

    @Test func anEmptyQueryOrARelativePathIsMalformed() throws {
        var signed = try presign()
        signed.query = ""
        #expect(failure(verify(signed)) == .malformed("no query string"))
        signed = try presign()
        signed.path = "media/42/clip.mp4"
        #expect(failure(verify(signed)) == .malformed("path must start with /"))
        signed.path = "/media/%4"
        #expect(failure(verify(signed)) == .malformed("invalid percent-encoding in the path"))
    }

    // MARK: time

    @Test func theURLIsValidUntilTheLastSecondBeforeExpiry() throws {
        let signed = try presign()
        #expect(throws: Never.self) { try verify(signed, now: signedAt).get() }
        #expect(throws: Never.self) { try verify(signed, now: signedAt + 899).get() }
        #expect(failure(verify(signed, now: signedAt + 900)) == .expired)
        #expect(failure(verify(signed, now: signedAt + 100_000)) == .expired)
    }

    @Test func aSigningTimeInTheFutureIsAcceptedOnlyWithinTheSkew() throws {
        let signed = try presign()
        #expect(throws: Never.self) { try verify(signed, now: signedAt - 60).get() }
        #expect(failure(verify(signed, now: signedAt - 61)) == .notYetValid)
    }

    @Test func theSkewNeverExtendsTheExpiry() throws {
        let generous = SigV4Verifier(region: "local", service: "s3", allowedClockSkew: 3600, crypto: crypto)
        #expect(failure(verify(try presign(), now: signedAt + 900, verifier: generous)) == .expired)
    }

    // MARK: presign input errors

    @Test func presigningRefusesInputItCannotSignCorrectly() {
        let signer = SigV4Signer(
            credentials: SigV4Credentials(accessKeyId: "k", secretAccessKey: "s"), crypto: crypto)
        func request(
            scheme: String = "http", host: String = "h", path: String = "/p",
            headers: [(name: String, value: String)] = [], query: [(name: String, value: String)] = [],
            time: Int64 = 0, expires: Int = 1
        ) -> SigV4PresignRequest {
            SigV4PresignRequest(
                method: "GET", scheme: scheme, host: host, path: path, signedHeaders: headers, extraQuery: query,
                region: "r", service: "s", signingTime: time, expiresSeconds: expires)
        }
        #expect(throws: SigV4PresignError.invalidExpires(0)) { try signer.presign(request(expires: 0)) }
        #expect(throws: SigV4PresignError.invalidExpires(604_801)) { try signer.presign(request(expires: 604_801)) }
        #expect(throws: SigV4PresignError.invalidSigningTime(-1)) { try signer.presign(request(time: -1)) }
        #expect(throws: SigV4PresignError.invalidScheme("ftp")) { try signer.presign(request(scheme: "ftp")) }
        #expect(throws: SigV4PresignError.invalidHost("a b")) { try signer.presign(request(host: "a b")) }
        #expect(throws: SigV4PresignError.invalidPath) { try signer.presign(request(path: "p")) }
        var slashRegion = request()
        slashRegion.region = "us/east"
        #expect(throws: SigV4PresignError.invalidField("region")) { try signer.presign(slashRegion) }
        #expect(throws: SigV4PresignError.invalidHeaderName("Content Type")) {
            try signer.presign(request(headers: [("Content Type", "x")]))
        }
        #expect(throws: SigV4PresignError.invalidHeaderName("a:b")) {
            try signer.presign(request(headers: [("a:b", "x")]))
        }
        #expect(throws: SigV4PresignError.reservedName("Host")) {
            try signer.presign(request(headers: [("Host", "x")]))
        }
        #expect(throws: SigV4PresignError.reservedName("X-Amz-Expires")) {
            try signer.presign(request(query: [("X-Amz-Expires", "5")]))
        }
    }
}
