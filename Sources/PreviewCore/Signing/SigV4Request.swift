/// Long-term or temporary AWS-style credentials for SigV4.
public struct SigV4Credentials: Sendable, Equatable {
    public var accessKeyId: String
    public var secretAccessKey: String
    /// The STS session token of temporary credentials; presigned URLs then carry it as
    /// the signed `X-Amz-Security-Token` query parameter.
    public var sessionToken: String?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

/// Everything a presigned URL binds (AWS S3 API reference, "Authenticating Requests:
/// Using Query Parameters (AWS Signature Version 4)").
public struct SigV4PresignRequest: Sendable {
    /// The HTTP method the URL allows, as sent on the wire (`GET`, `PUT`, `HEAD`, ...).
    public var method: String
    /// `http` or `https`; decides the default port left out of `host`.
    public var scheme: String
    /// The authority, optionally with `:port` (`[v6]:port` for IPv6 literals).
    public var host: String
    /// The object path after the host, starting with `/`, as raw bytes (not yet encoded):
    /// for S3 path-style that is `/bucket/key`, virtual-hosted style `/key`.
    public var path: [UInt8]
    /// Headers the client must send with exactly these values (besides `host`, which is
    /// always signed and must not appear here), e.g. `content-type`, `content-length`.
    public var signedHeaders: [(name: String, value: String)]
    /// Further signed query parameters, unencoded (e.g. `response-content-type`); names
    /// must not start with `X-Amz-` auth parameter names.
    public var extraQuery: [(name: String, value: String)]
    public var region: String
    public var service: String
    /// Unix seconds; becomes `X-Amz-Date`.
    public var signingTime: Int64
    /// `X-Amz-Expires`, 1...604800 seconds.
    public var expiresSeconds: Int
    /// The authority written into the URL when it must keep the endpoint's own spelling
    /// (botocore keeps a custom endpoint's `Host:443` or capitals as given, while the signed
    /// `host` is always normalised); nil writes the normalised host.
    public var urlAuthority: String? = nil

    public init(
        method: String, scheme: String, host: String, path: [UInt8],
        signedHeaders: [(name: String, value: String)] = [], extraQuery: [(name: String, value: String)] = [],
        region: String, service: String, signingTime: Int64, expiresSeconds: Int
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.path = path
        self.signedHeaders = signedHeaders
        self.extraQuery = extraQuery
        self.region = region
        self.service = service
        self.signingTime = signingTime
        self.expiresSeconds = expiresSeconds
    }

    /// Same, with the path given as text: its UTF-8 bytes are used as they are, never
    /// Unicode-normalised.
    public init(
        method: String, scheme: String, host: String, path: String,
        signedHeaders: [(name: String, value: String)] = [], extraQuery: [(name: String, value: String)] = [],
        region: String, service: String, signingTime: Int64, expiresSeconds: Int
    ) {
        self.init(
            method: method, scheme: scheme, host: host, path: Array(path.utf8), signedHeaders: signedHeaders,
            extraQuery: extraQuery, region: region, service: service, signingTime: signingTime,
            expiresSeconds: expiresSeconds)
    }
}

/// Why a presign request cannot be signed; each is a programming or configuration error.
public enum SigV4PresignError: Error, Sendable, Equatable {
    /// `X-Amz-Expires` must be within 1...604800 (seven days).
    case invalidExpires(Int)
    /// The signing time must fall within years 1970...9999.
    case invalidSigningTime(Int64)
    case invalidScheme(String)
    case invalidHost(String)
    /// The path must start with `/`.
    case invalidPath
    /// `host` is always signed from `host`; auth parameters are set by the signer.
    case reservedName(String)
    /// A header name that is not an RFC 9110 token.
    case invalidHeaderName(String)
    /// The method, region, service or access key id is empty, or one of the last three
    /// holds a `/` (it would change the credential scope).
    case invalidField(String)
}
