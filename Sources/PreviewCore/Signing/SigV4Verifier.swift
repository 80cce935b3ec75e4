/// Verifies SigV4 presigned requests as S3 does, for the embedded object store (AWS S3 API
/// reference, "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)").
///
/// The canonical request is rebuilt from the request as received: the raw path is
/// percent-decoded to bytes and re-encoded by the canonical rule (so `%7E` and `~` verify
/// alike), query names and values likewise, and the signed headers are read from the
/// request. Signatures are compared with `CryptoPrimitives.constantTimeEqual`.
///
/// Checks run in this order: query shape and scope (`malformed`), signed headers present,
/// key known, signature, then time. Time is checked last so a forged URL never learns
/// anything about validity windows.
public struct SigV4Verifier: Sendable {
    /// The region and service the credential scope must name (`local`/`s3` for the
    /// embedded store).
    public let region: String
    public let service: String
    /// How far `X-Amz-Date` may lie in the future (clients with fast clocks); it never
    /// extends the expiry.
    public let allowedClockSkew: Int64
    private let crypto: any CryptoPrimitives

    public init(region: String, service: String, allowedClockSkew: Int64 = 300, crypto: any CryptoPrimitives) {
        self.region = region
        self.service = service
        self.allowedClockSkew = max(0, allowedClockSkew)
        self.crypto = crypto
    }

    /// Verifies one request.
    ///
    /// - Parameters:
    ///   - rawPath: the request target's path as sent, still percent-encoded, no query.
    ///   - rawQuery: the query as sent, after `?`.
    ///   - now: Unix seconds.
    ///   - secretForAccessKey: the secret access key of an access key id, or nil.
    public func verify(
        method: String, rawPath: String, rawQuery: String, headers: HTTPHeaders, now: Int64,
        secretForAccessKey: (String) -> String?
    ) -> Result<SignedURLInfo, SigV4VerificationFailure> {
        let parsed: Parsed
        switch parse(method: method, rawPath: rawPath, rawQuery: rawQuery, headers: headers) {
        case .success(let value): parsed = value
        case .failure(let failure): return .failure(failure)
        }
        guard let secret = secretForAccessKey(parsed.auth.accessKeyId) else { return .failure(.unknownKey) }

        let key = SigV4Canonical.signingKey(
            secret: secret, date: parsed.auth.date, region: region, service: service, crypto: crypto)
        let expected = SigV4Canonical.signature(
            signingKey: key, stringToSign: stringToSign(parsed), crypto: crypto)
        guard crypto.constantTimeEqual(expected, parsed.auth.signature) else { return .failure(.signatureMismatch) }

        let signingTime = parsed.auth.signingTime
        guard now >= signingTime - allowedClockSkew else { return .failure(.notYetValid) }
        let expiresAt = signingTime + Int64(parsed.auth.expires)
        guard now < expiresAt else { return .failure(.expired) }

        return .success(
            SignedURLInfo(
                accessKeyId: parsed.auth.accessKeyId, method: method, path: parsed.path,
                signedHeaders: Dictionary(uniqueKeysWithValues: parsed.headers.map { ($0.name, $0.value) }),
                extraQuery: parsed.extraQuery, sessionToken: parsed.auth.sessionToken, signingTime: signingTime,
                expiresAt: expiresAt))
    }

    /// Verifies a request head, before its body is read (so a bad URL never costs an upload).
    public func verify(
        _ request: HTTPRequestHead, now: Int64, secretForAccessKey: (String) -> String?
    ) -> Result<SignedURLInfo, SigV4VerificationFailure> {
        verify(
            method: request.method, rawPath: request.path, rawQuery: request.rawQuery, headers: request.headers,
            now: now, secretForAccessKey: secretForAccessKey)
    }

    /// The canonical request this verifier computes for a request, for logging beside a
    /// `signatureMismatch` (operators diff it against the client's).
    public func canonicalRequest(
        method: String, rawPath: String, rawQuery: String, headers: HTTPHeaders
    ) -> Result<String, SigV4VerificationFailure> {
        parse(method: method, rawPath: rawPath, rawQuery: rawQuery, headers: headers).map(\.canonicalRequest)
    }

    private struct Parsed {
        var auth: SigV4AuthParameters
        var path: [UInt8]
        var headers: [(name: String, value: String)]
        var extraQuery: [SigV4QueryParameter]
        var canonicalRequest: String
    }

    private func stringToSign(_ parsed: Parsed) -> String {
        SigV4Canonical.stringToSign(
            amzDate: parsed.auth.amzDate,
            scope: SigV4Canonical.scope(date: parsed.auth.date, region: region, service: service),
            canonicalRequest: parsed.canonicalRequest, crypto: crypto)
    }

    private func parse(
        method: String, rawPath: String, rawQuery: String, headers: HTTPHeaders
    ) -> Result<Parsed, SigV4VerificationFailure> {
        guard rawPath.hasPrefix("/") else { return .failure(.malformed("path must start with /")) }
        guard let path = SigV4Encoding.percentDecode(rawPath, plusIsSpace: false) else {
            return .failure(.malformed("invalid percent-encoding in the path"))
        }
        let parameters: [SigV4QueryParser.Parameter]
        switch SigV4QueryParser.parse(rawQuery) {
        case .success(let value): parameters = value
        case .failure(let failure): return .failure(failure)
        }
        let auth: SigV4AuthParameters
        switch SigV4AuthParameters.parse(parameters) {
        case .success(let value): auth = value
        case .failure(let failure): return .failure(failure)
        }
        guard auth.region == region, auth.service == service else {
            return .failure(.malformed("credential scope \(auth.region)/\(auth.service) is not \(region)/\(service)"))
        }

        var signed: [(name: String, value: String)] = []
        for name in auth.signedHeaders {
            let values = headers.values(name)
            guard !values.isEmpty else { return .failure(.missingSignedHeader(name)) }
            signed.append((name: name, value: values.map(SigV4Canonical.normaliseValue).joined(separator: ",")))
        }

        let canonicalQuery = SigV4Canonical.query(
            parameters.filter { $0.nameText != SigV4Canonical.Param.signature }.map {
                (
                    name: SigV4Encoding.uriEncode($0.name, keepSlash: false),
                    value: SigV4Encoding.uriEncode($0.value, keepSlash: false)
                )
            })
        let canonicalRequest = SigV4Canonical.request(
            method: method, uri: SigV4Canonical.uri(path), query: canonicalQuery, headers: signed,
            payloadHash: SigV4Canonical.unsignedPayload)
        let extraQuery = parameters.filter { !SigV4Canonical.Param.all.contains($0.nameText) }.map {
            SigV4QueryParameter(name: $0.nameText, value: String(decoding: $0.value, as: UTF8.self))
        }
        return .success(
            Parsed(auth: auth, path: path, headers: signed, extraQuery: extraQuery, canonicalRequest: canonicalRequest))
    }
}
