/// How a GCS V4 URL is signed.
public enum GCSV4Credentials: Sendable {
    /// `GOOG4-RSA-SHA256` with a service-account key: the account's `client_email` and a
    /// function computing RSASSA-PKCS1-v1_5 SHA-256 over the bytes it is given (libcrypto,
    /// injected by the app so Core stays free of C).
    case serviceAccount(email: String, sign: @Sendable ([UInt8]) throws -> [UInt8])
    /// `GOOG4-HMAC-SHA256` with a Cloud Storage HMAC key (access ID and secret).
    case hmac(accessId: String, secret: String)
}

/// How the bucket appears in a GCS URL (Cloud Storage "Request endpoints").
public enum GCSAddressing: String, Sendable, Equatable {
    /// `https://storage.googleapis.com/<bucket>/<object>` (the SDK's default).
    case path
    /// `https://<bucket>.storage.googleapis.com/<object>`.
    case virtual
    /// The endpoint's host is bound to the bucket (a CNAME or CDN domain): `https://<host>/<object>`.
    case bucketHost = "bucket-host"
}

/// Presigned object URLs for Google Cloud Storage, V4 signing ("V4 signing process" in the
/// Cloud Storage docs), byte-identical to google-cloud-storage 3.x
/// `Blob.generate_signed_url(version="v4")` for RSA keys.
///
/// The URL is `<base><resource>?<canonical query>&X-Goog-Signature=<hex>`: the query is
/// emitted in its canonical (sorted) order, as the SDK does. The object name is
/// percent-encoded from its UTF-8 bytes (everything but `A-Z a-z 0-9 - . _ ~ /`), never
/// normalised. The URL's authority, and the signed `host`, is the endpoint's as written but
/// without the scheme's default port (`StorageEndpointURL.requestAuthority`): clients leave
/// that port out of `Host`, so a signature over `storage.googleapis.com:443` (what the SDK
/// signs when given that endpoint) never verifies. For such an endpoint the URL is the SDK's
/// for the endpoint written without the port.
public struct GCSV4Presigner: ObjectURLSigner {
    public static let defaultEndpoint = "https://storage.googleapis.com"
    /// The SDK's (fixed) scope region.
    public static let defaultRegion = "auto"

    public let region: String
    public let addressing: GCSAddressing
    private let credentials: GCSV4Credentials
    private let endpoint: StorageEndpointURL
    private let crypto: any CryptoPrimitives
    /// The HMAC signing key of the last scope signed in.
    private let signingKeys = SigningKeyCache()

    /// Throws `ObjectSignError.invalidRequest` for an endpoint that is not a bare
    /// `http(s)://host[:port]`, or `bucket-host` without an explicit endpoint.
    public init(
        credentials: GCSV4Credentials, endpoint: String? = nil, region: String = GCSV4Presigner.defaultRegion,
        addressing: GCSAddressing = .path, crypto: any CryptoPrimitives
    ) throws(ObjectSignError) {
        guard let url = StorageEndpointURL(endpoint ?? Self.defaultEndpoint), url.path.isEmpty else {
            throw .invalidRequest("the GCS endpoint '\(endpoint ?? "")' must be http(s)://host[:port] without a path")
        }
        guard addressing != .bucketHost || endpoint != nil else {
            throw .invalidRequest("bucket-host addressing needs --endpoint (the bucket's own host)")
        }
        guard !region.isEmpty, !region.contains("/") else {
            throw .invalidRequest("the region must not be empty or hold /")
        }
        self.credentials = credentials
        self.endpoint = url
        self.region = region
        self.addressing = addressing
        self.crypto = crypto
    }

    public func presign(_ request: ObjectSignRequest) throws -> String {
        let prepared = try prepare(request)
        let signature: [UInt8]
        switch credentials {
        case .serviceAccount(_, let sign):
            signature = try sign(Array(prepared.stringToSign.utf8))
        case .hmac(_, let secret):
            let scope = GCSV4Canonical.scope(date: prepared.date, region: region)
            let key = signingKeys.key(scope: scope, crypto: crypto) {
                GCSV4Canonical.signingKey(secret: secret, date: prepared.date, region: region, crypto: crypto)
            }
            signature = key.authenticate(Array(prepared.stringToSign.utf8))
        }
        return "\(prepared.base)\(prepared.resource)?\(prepared.query)"
            + "&\(GCSV4Canonical.Param.signature)=\(Hex.encode(signature))"
    }

    /// The canonical request behind `presign`.
    public func canonicalRequest(for request: ObjectSignRequest) throws -> String {
        try prepare(request).canonicalRequest
    }

    /// The string to sign behind `presign`.
    public func stringToSign(for request: ObjectSignRequest) throws -> String { try prepare(request).stringToSign }

    /// The headers an upload URL signs and the client must send: `Content-Type`,
    /// `x-goog-content-length-range: 0,<maxBytes>` (GCS refuses a larger body) and
    /// `x-goog-if-generation-match: 0` (GCS answers 412 when the object already exists, so an
    /// object is written once and a committed one cannot be replaced through its URL).
    public static func uploadHeaders(contentType: String, maxBytes: Int64) -> [(name: String, value: String)] {
        [
            ("Content-Type", contentType), ("x-goog-content-length-range", "0,\(maxBytes)"),
            (writeOnceHeader.name, writeOnceHeader.value),
        ]
    }

    /// The precondition that makes an upload URL write-once ("Request preconditions": a
    /// generation match of 0 succeeds only when no live object has the name).
    public static let writeOnceHeader = (name: "x-goog-if-generation-match", value: "0")

    private struct Prepared {
        var base: String
        var resource: String
        var query: String
        var date: String
        var canonicalRequest: String
        var stringToSign: String
    }

    private func prepare(_ request: ObjectSignRequest) throws(ObjectSignError) -> Prepared {
        try validate(request)
        guard let timestamp = SigningTimestamp.basicFormat(request.signingTime) else {
            throw .invalidRequest("the signing time \(request.signingTime) is outside years 1970...9999")
        }
        let date = String(timestamp.prefix(8))
        let quotedKey = ObjectPath.encode(request.key)
        let authority: String
        let resource: String
        switch addressing {
        case .path:
            authority = endpoint.requestAuthority
            resource = "/\(request.bucket)/\(quotedKey)"
        case .virtual:
            authority = "\(request.bucket).\(endpoint.requestAuthority)"
            resource = "/\(quotedKey)"
        case .bucketHost:
            authority = endpoint.requestAuthority
            resource = "/\(quotedKey)"
        }
        let headers = GCSV4Canonical.headers([(name: "host", value: authority)] + request.headers)
        let (algorithm, credentialId) =
            switch credentials {
            case .serviceAccount(let email, _): (GCSV4Canonical.rsaAlgorithm, email)
            case .hmac(let accessId, _): (GCSV4Canonical.hmacAlgorithm, accessId)
            }
        let scope = GCSV4Canonical.scope(date: date, region: region)
        let query = GCSV4Canonical.query(
            request.query + [
                (GCSV4Canonical.Param.algorithm, algorithm),
                (GCSV4Canonical.Param.credential, "\(credentialId)/\(scope)"),
                (GCSV4Canonical.Param.date, timestamp),
                (GCSV4Canonical.Param.expires, String(request.expiresSeconds)),
                (GCSV4Canonical.Param.signedHeaders, headers.map(\.name).joined(separator: ";")),
            ])
        let payload = headers.first { $0.name == "x-goog-content-sha256" }?.value ?? GCSV4Canonical.unsignedPayload
        let canonicalRequest = GCSV4Canonical.request(
            method: request.method, resource: resource, query: query, headers: headers, payload: payload)
        let stringToSign = GCSV4Canonical.stringToSign(
            algorithm: algorithm, timestamp: timestamp, scope: scope, canonicalRequest: canonicalRequest,
            crypto: crypto)
        return Prepared(
            base: "\(endpoint.scheme)://\(authority)", resource: resource, query: query, date: date,
            canonicalRequest: canonicalRequest, stringToSign: stringToSign)
    }

    private func validate(_ request: ObjectSignRequest) throws(ObjectSignError) {
        if let problem = ObjectKeyRule.problem(with: request.key) { throw .invalidKey(problem) }
        guard !request.bucket.isEmpty,
            request.bucket.utf8.allSatisfy({ SigV4Encoding.isUnreserved($0) && $0 != UInt8(ascii: "~") })
        else { throw .invalidRequest("the bucket name '\(request.bucket)' has characters GCS does not allow") }
        guard GCSV4Canonical.expiresRange.contains(request.expiresSeconds) else {
            throw .invalidRequest("expiry must be 1...604800 seconds (seven days), not \(request.expiresSeconds)")
        }
        guard HTTPToken.isToken(request.method) else {
            throw .invalidRequest("the method '\(request.method)' is not an HTTP token")
        }
        for header in request.headers {
            let name = SigV4Canonical.normaliseValue(header.name)
            guard HTTPToken.isToken(name) else {
                throw .invalidRequest("the header name '\(header.name)' is not an HTTP token")
            }
            guard name.lowercased() != "host" else {
                throw .invalidRequest("host is signed from the URL; do not give it")
            }
        }
        for parameter in request.query where GCSV4Canonical.Param.all.contains(parameter.name) {
            throw .invalidRequest("\(parameter.name) is set by the signer")
        }
    }
}
