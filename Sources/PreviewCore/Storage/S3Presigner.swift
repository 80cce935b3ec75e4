/// Presigned object URLs for S3 and S3-compatible stores (AWS, R2, MinIO): AWS SigV4
/// query-string authentication (S3 API reference, "Authenticating Requests: Using Query
/// Parameters (AWS Signature Version 4)") on the URL `S3Endpoint` resolves, byte-identical
/// to botocore 1.43's `generate_presigned_url`.
///
/// Query order is botocore's: the request's extra parameters in the given order, then
/// `X-Amz-Algorithm`, `-Credential`, `-Date`, `-Expires`, `-SignedHeaders`,
/// `-Security-Token`, `-Signature`. (botocore orders several `response-*` parameters by its
/// service model instead; the signature does not depend on the emitted order.)
public struct S3Presigner: ObjectURLSigner {
    public static let service = "s3"
    /// botocore's region when none is configured.
    public static let defaultRegion = "us-east-1"

    public let region: String
    public let endpoint: String?
    public let addressing: S3Addressing
    private let signer: SigV4Signer

    /// - Parameters:
    ///   - region: the scope region (`auto` for R2).
    ///   - endpoint: a custom base URL (`https://<account>.r2.cloudflarestorage.com`,
    ///     `http://127.0.0.1:9000`); nil for AWS.
    public init(
        credentials: SigV4Credentials, region: String = S3Presigner.defaultRegion, endpoint: String? = nil,
        addressing: S3Addressing = .auto, crypto: any CryptoPrimitives
    ) {
        self.region = region
        self.endpoint = endpoint
        self.addressing = addressing
        signer = SigV4Signer(credentials: credentials, crypto: crypto)
    }

    public func presign(_ request: ObjectSignRequest) throws -> String {
        try signer.presign(sigV4Request(request))
    }

    /// A presigned URL for a request on the bucket itself rather than on an object, such as
    /// DeleteObjects (`POST /<bucket>?delete`): the path is the bucket's (`/<bucket>` path
    /// style, `/` virtual-hosted); `request.key` must be empty.
    public func presignBucket(_ request: ObjectSignRequest) throws -> String {
        guard request.key.isEmpty else { throw ObjectSignError.invalidRequest("a bucket request names no object key") }
        return try signer.presign(sigV4Request(request, bucketOnly: true))
    }

    /// The canonical request behind `presign`, for comparing with a store's
    /// `SignatureDoesNotMatch` report.
    public func canonicalRequest(for request: ObjectSignRequest) throws -> String {
        try signer.canonicalRequest(for: sigV4Request(request))
    }

    /// The headers an upload URL signs and the client must send: `Content-Type`, the exact
    /// `Content-Length` when the size is declared (query auth cannot sign a size range, so
    /// `serve` refuses undeclared sizes for S3), and `If-None-Match: *` (S3 conditional
    /// writes: 412 `PreconditionFailed` when the key exists, so an object is written once and a
    /// committed one cannot be replaced through its URL).
    public static func uploadHeaders(contentType: String, declaredBytes: Int64?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("Content-Type", contentType)]
        if let declaredBytes { headers.append(("Content-Length", String(declaredBytes))) }
        headers.append((writeOnceHeader.name, writeOnceHeader.value))
        return headers
    }

    /// The precondition that makes an upload URL write-once ("Conditional writes" in the S3
    /// user guide; `PutObject` `If-None-Match`).
    public static let writeOnceHeader = (name: "If-None-Match", value: "*")

    private func sigV4Request(_ request: ObjectSignRequest, bucketOnly: Bool = false) throws -> SigV4PresignRequest {
        if !bucketOnly, let problem = ObjectKeyRule.problem(with: request.key) {
            throw ObjectSignError.invalidKey(problem)
        }
        let location = try S3Endpoint.resolve(
            bucket: request.bucket, region: region, endpoint: endpoint, addressing: addressing)
        var path = Array(location.keyPrefix.utf8) + Array(request.key.utf8)
        if bucketOnly, path.count > 1 { path.removeLast() }  // `/<bucket>/` → `/<bucket>`
        var presign = SigV4PresignRequest(
            method: request.method, scheme: location.scheme, host: location.authority,
            path: path, signedHeaders: request.headers,
            extraQuery: request.query, region: region, service: Self.service, signingTime: request.signingTime,
            expiresSeconds: request.expiresSeconds)
        presign.urlAuthority = location.authority
        return presign
    }
}
