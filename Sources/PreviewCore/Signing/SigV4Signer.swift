/// Presigns URLs with AWS Signature Version 4 query-string authentication (AWS S3 API
/// reference, "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)").
///
/// The URL is `scheme://host[:port]<encoded path>?<query>&X-Amz-Signature=<hex>` with the
/// query in botocore's order: the extra parameters first, in the given order, then
/// `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
/// `X-Amz-SignedHeaders`, and `X-Amz-Security-Token` when there is a session token. The
/// signature covers the sorted canonical form, so the emitted order does not affect it.
public struct SigV4Signer: Sendable {
    public let credentials: SigV4Credentials
    private let crypto: any CryptoPrimitives
    /// `kSigning` of the last scope signed in.
    private let signingKeys = SigningKeyCache()

    public init(credentials: SigV4Credentials, crypto: any CryptoPrimitives) {
        self.credentials = credentials
        self.crypto = crypto
    }

    /// The presigned URL.
    public func presign(_ request: SigV4PresignRequest) throws(SigV4PresignError) -> String {
        let prepared = try prepare(request)
        let key = signingKeys.key(scope: prepared.scope, crypto: crypto) {
            SigV4Canonical.signingKey(
                secret: credentials.secretAccessKey, date: prepared.date, region: request.region,
                service: request.service, crypto: crypto)
        }
        let signature = key.authenticate(Array(stringToSign(prepared).utf8))
        let query = SigV4Canonical.joinedPairs(
            prepared.query + [(SigV4Canonical.Param.signature, Hex.encode(signature))])
        return request.scheme + "://" + (request.urlAuthority ?? prepared.host) + prepared.uri + "?" + query
    }

    /// The canonical request the signature covers, for comparing with what a store reports
    /// on `SignatureDoesNotMatch`.
    public func canonicalRequest(for request: SigV4PresignRequest) throws(SigV4PresignError) -> String {
        try prepare(request).canonicalRequest
    }

    /// The string to sign (algorithm, timestamp, scope, canonical request hash).
    public func stringToSign(for request: SigV4PresignRequest) throws(SigV4PresignError) -> String {
        try stringToSign(prepare(request))
    }

    private func stringToSign(_ prepared: Prepared) -> String {
        SigV4Canonical.stringToSign(
            amzDate: prepared.amzDate, scope: prepared.scope, canonicalRequest: prepared.canonicalRequest,
            crypto: crypto)
    }

    private struct Prepared {
        var host: String
        var uri: String
        var amzDate: String
        var date: String
        var scope: String
        /// Encoded pairs in emission order, without the signature.
        var query: [(name: String, value: String)]
        var canonicalRequest: String
    }

    private func prepare(_ request: SigV4PresignRequest) throws(SigV4PresignError) -> Prepared {
        try validate(request)
        guard let host = SigV4Canonical.host(request.host, scheme: request.scheme) else {
            throw .invalidHost(request.host)
        }
        let amzDate = SigV4Time.amzDate(request.signingTime)
        let date = String(amzDate.prefix(8))
        let scope = SigV4Canonical.scope(date: date, region: request.region, service: request.service)
        let headers = SigV4Canonical.headers([(name: "host", value: host)] + request.signedHeaders)
        let signedNames = headers.map(\.name).joined(separator: ";")

        var auth: [(name: String, value: String)] = [
            (SigV4Canonical.Param.algorithm, SigV4Canonical.algorithm),
            (SigV4Canonical.Param.credential, "\(credentials.accessKeyId)/\(scope)"),
            (SigV4Canonical.Param.date, amzDate),
            (SigV4Canonical.Param.expires, String(request.expiresSeconds)),
            (SigV4Canonical.Param.signedHeaders, signedNames),
        ]
        if let token = credentials.sessionToken {
            auth.append((SigV4Canonical.Param.securityToken, token))
        }
        let query = (request.extraQuery + auth).map {
            (name: SigV4Encoding.queryEncode($0.name), value: SigV4Encoding.queryEncode($0.value))
        }
        let uri = SigV4Canonical.uri(request.path)
        let canonicalRequest = SigV4Canonical.request(
            method: request.method, uri: uri, query: SigV4Canonical.query(query), headers: headers,
            payloadHash: SigV4Canonical.unsignedPayload)
        return Prepared(
            host: host, uri: uri, amzDate: amzDate, date: date, scope: scope, query: query,
            canonicalRequest: canonicalRequest)
    }

    private func validate(_ request: SigV4PresignRequest) throws(SigV4PresignError) {
        guard SigV4Canonical.expiresRange.contains(request.expiresSeconds) else {
            throw .invalidExpires(request.expiresSeconds)
        }
        guard SigV4Time.validRange.contains(request.signingTime) else {
            throw .invalidSigningTime(request.signingTime)
        }
        guard request.scheme == "http" || request.scheme == "https" else { throw .invalidScheme(request.scheme) }
        guard request.path.first == UInt8(ascii: "/") else { throw .invalidPath }
        guard !request.method.isEmpty else { throw .invalidField("method") }
        // Bytes, not `String.contains`: Foundation's substring search cost more than the signature.
        let isScopeField = { (value: String) in !value.isEmpty && !value.utf8.contains(UInt8(ascii: "/")) }
        guard isScopeField(request.region) else { throw .invalidField("region") }
        guard isScopeField(request.service) else { throw .invalidField("service") }
        guard isScopeField(credentials.accessKeyId) else { throw .invalidField("accessKeyId") }
        for header in request.signedHeaders {
            guard HTTPToken.isToken(header.name) else {
                throw .invalidHeaderName(header.name)
            }
            guard header.name.utf8.count != 4 || header.name.lowercased() != "host" else {
                throw .reservedName(header.name)
            }
        }
        for parameter in request.extraQuery where SigV4Canonical.Param.all.contains(parameter.name) {
            throw .reservedName(parameter.name)
        }
    }
}
