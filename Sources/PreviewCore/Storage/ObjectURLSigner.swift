/// What a presigned object URL binds: one method on one object, for a time, with the
/// headers and extra query parameters the client must send as given.
public struct ObjectSignRequest: Sendable {
    /// `GET`, `PUT`, `HEAD`, `DELETE`, `POST`.
    public var method: String
    /// Ignored by the local store (it has one bucket).
    public var bucket: String
    /// The object key, signed as its exact UTF-8 bytes: no Unicode or path normalisation.
    public var key: String
    public var expiresSeconds: Int
    /// Unix seconds; the URL is valid from then for `expiresSeconds`.
    public var signingTime: Int64
    /// Headers the client must send with exactly these values (names as given; the signer
    /// canonicalises them), e.g. `Content-Type`, `x-goog-content-length-range`.
    public var headers: [(name: String, value: String)]
    /// Further signed query parameters, e.g. `response-content-disposition`.
    public var query: [(name: String, value: String)]

    public init(
        method: String, bucket: String, key: String, expiresSeconds: Int, signingTime: Int64,
        headers: [(name: String, value: String)] = [], query: [(name: String, value: String)] = []
    ) {
        self.method = method
        self.bucket = bucket
        self.key = key
        self.expiresSeconds = expiresSeconds
        self.signingTime = signingTime
        self.headers = headers
        self.query = query
    }
}

/// Makes presigned URLs for one storage backend (S3 SigV4, GCS V4, the local store).
public protocol ObjectURLSigner: Sendable {
    func presign(_ request: ObjectSignRequest) throws -> String
}

/// Keys the stores themselves refuse, refused before signing with a clear message.
public enum ObjectKeyRule {
    public static let maxBytes = 1024

    /// nil when the key can be signed; otherwise why not.
    public static func problem(with key: String) -> String? {
        if key.isEmpty { return "the object key is empty" }
        if key.utf8.count > maxBytes { return "the object key is \(key.utf8.count) bytes; stores allow \(maxBytes)" }
        return nil
    }
}
