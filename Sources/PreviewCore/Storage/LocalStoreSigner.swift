/// Signs URLs of the embedded local object store: AWS SigV4 query auth (region `local`,
/// service `s3`) on `/objects/<key>` of the server's base URL. The bucket is ignored.
public struct LocalStoreSigner: ObjectURLSigner {
    public static let region = "local"
    public static let service = "s3"
    public static let accessKeyId = "streampreview-local"
    /// Signed query parameter carrying the most bytes a PUT may send (our extension; S3 URLs
    /// sign an exact Content-Length instead).
    public static let maxBytesParameter = "x-sp-max-bytes"

    public let scheme: String
    /// Authority: host, with `:port` when not the scheme's default.
    public let host: String
    private let signer: SigV4Signer

    public init(scheme: String, host: String, secret: String, crypto: any CryptoPrimitives) {
        self.scheme = scheme
        self.host = host
        signer = SigV4Signer(
            credentials: SigV4Credentials(accessKeyId: Self.accessKeyId, secretAccessKey: secret), crypto: crypto)
    }

    public func presign(_ request: ObjectSignRequest) throws -> String {
        if let problem = ObjectKeyRule.problem(with: request.key) { throw ObjectSignError.invalidKey(problem) }
        return try signer.presign(
            SigV4PresignRequest(
                method: request.method, scheme: scheme, host: host, path: Route.objectsPrefix + request.key,
                signedHeaders: request.headers.map { (name: $0.name.lowercased(), value: $0.value) },
                extraQuery: request.query, region: Self.region, service: Self.service,
                signingTime: request.signingTime, expiresSeconds: request.expiresSeconds))
    }
}
