/// What a valid presigned request proves: the store enforces these (for example the signed
/// `content-length` and `content-type` of an upload).
public struct SignedURLInfo: Sendable, Equatable {
    public var accessKeyId: String
    public var method: String
    /// The object path as bytes, percent-escapes decoded (`/bucket/key` or `/key`).
    public var path: [UInt8]
    /// Signed header names (lower case) and the values that were signed, as normalised
    /// for the canonical request (trimmed, inner whitespace collapsed, repeats joined by `,`).
    /// Always holds `host`.
    public var signedHeaders: [String: String]
    /// Query parameters other than the `X-Amz-*` auth ones, decoded, in request order.
    public var extraQuery: [SigV4QueryParameter]
    public var sessionToken: String?
    /// `X-Amz-Date` as Unix seconds.
    public var signingTime: Int64
    /// Unix seconds from which the URL is refused: `signingTime + X-Amz-Expires`.
    public var expiresAt: Int64

    public init(
        accessKeyId: String, method: String, path: [UInt8], signedHeaders: [String: String],
        extraQuery: [SigV4QueryParameter], sessionToken: String?, signingTime: Int64, expiresAt: Int64
    ) {
        self.accessKeyId = accessKeyId
        self.method = method
        self.path = path
        self.signedHeaders = signedHeaders
        self.extraQuery = extraQuery
        self.sessionToken = sessionToken
        self.signingTime = signingTime
        self.expiresAt = expiresAt
    }
}

/// One decoded query parameter.
public struct SigV4QueryParameter: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Why a presigned request is refused.
public enum SigV4VerificationFailure: Error, Sendable, Equatable {
    /// The URL does not have the SigV4 query shape, or its scope is not ours (wrong region
    /// or service, date not matching the scope); the reason is for logs, not clients.
    case malformed(String)
    /// No secret for the credential's access key id.
    case unknownKey
    /// `X-Amz-Date` is later than now plus the allowed clock skew.
    case notYetValid
    /// Now is at or past `X-Amz-Date + X-Amz-Expires`.
    case expired
    case signatureMismatch
    /// A header named in `X-Amz-SignedHeaders` is absent from the request.
    case missingSignedHeader(String)
}
