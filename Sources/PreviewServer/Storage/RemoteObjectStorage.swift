package import PreviewCore
import PreviewHTTPClient

/// Objects in an S3 or GCS bucket: upload and playback URLs are presigned by the backend's
/// signer; commit verification and the sweeper reach the bucket through
/// `RemoteObjectClient` (HEAD, ranged GET, DELETE, S3's DeleteObjects, each presigned with the
/// same signer). Deletes are in `RemoteObjectStorage+Delete.swift`.
package final class RemoteObjectStorage: ObjectStorage {
    let backend: StorageOptions.Backend
    let bucket: String
    let publicBaseURL: String?
    let grid: ExpiryGrid
    let client: RemoteObjectClient
    private let signedURLs = SignedURLCache()

    /// - Parameters:
    ///   - backend: decides which headers an upload URL signs (`SignerFactory.uploadHeaders`).
    ///   - publicBaseURL: feed URLs are plain `<base>/<encoded key>` when set.
    package init(backend: StorageOptions.Backend, client: RemoteObjectClient, publicBaseURL: String?, grid: ExpiryGrid)
    {
        self.backend = backend
        bucket = client.bucket
        self.client = client
        self.publicBaseURL = publicBaseURL
        self.grid = grid
    }

    var signer: any ObjectURLSigner { client.signer }

    // MARK: URLs handed to clients

    /// A write-once PUT URL signing the content type, the size bound and the precondition of
    /// the backend (`SignerFactory.uploadHeaders`): S3 the exact declared `Content-Length` and
    /// `If-None-Match: *`, GCS `x-goog-content-length-range: 0,<max>` and
    /// `x-goog-if-generation-match: 0`.
    package func uploadTarget(key: String, spec: UploadSpec.ObjectSpec, now: Int64, expiresIn: Int64) throws
        -> UploadTarget
    {
        let headers = SignerFactory.uploadHeaders(
            for: backend, contentType: spec.type.rawValue, declaredBytes: spec.declaredBytes, maxBytes: spec.maxBytes)
        let url = try signer.presign(
            ObjectSignRequest(
                method: "PUT", bucket: bucket, key: key, expiresSeconds: Int(expiresIn), signingTime: now,
                headers: headers))
        var required: [String: String] = [:]
        for header in headers { required[header.name] = header.value }
        return UploadTarget(url: url, headers: required)
    }

    /// The plain public URL when configured, else a GET URL signed on the expiry grid (cached
    /// for the grid window, so every viewer gets the same URL).
    package func downloadURL(key: String, disposition: String?, now: Int64) throws -> String {
        if let publicBaseURL { return publicBaseURL + "/" + ObjectPath.encode(key) }
        let signingTime = grid.signingTime(at: now)
        let query = disposition.map { [(name: AttachmentDisposition.parameter, value: $0)] } ?? []
        return try signedURLs.url(key: key, disposition: disposition, signingTime: signingTime) {
            try signer.presign(
                ObjectSignRequest(
                    method: "GET", bucket: bucket, key: key, expiresSeconds: Int(grid.lifetime),
                    signingTime: signingTime, query: query))
        }
    }

    package func privateDownloadURL(key: String, now: Int64, expiresIn: Int64) throws -> String {
        try signer.presign(
            ObjectSignRequest(
                method: "GET", bucket: bucket, key: key, expiresSeconds: Int(expiresIn), signingTime: now))
    }

    // MARK: Requests of our own

    /// HEAD for size and content type, then a ranged GET for the leading bytes.
    package func inspect(key: String, prefixLength: Int) throws -> ObjectInfo? {
        let head = try client.send(method: "HEAD", key: key)
        if head.response.status == 404 { return nil }
        guard head.response.status == 200 else { throw failure("HEAD", key: key, head) }
        guard let lengthText = head.response.headers["Content-Length"], let size = Int64(lengthText), size >= 0
        else {
            throw StorageError("HEAD \(client.describe(key)) answered without a valid Content-Length")
        }
        let contentType = head.response.headers["Content-Type"]
        let wanted = Int(min(Int64(max(0, prefixLength)), size))
        guard wanted > 0 else { return ObjectInfo(size: size, contentType: contentType, prefix: []) }
        guard let prefix = try read(key: key, offset: 0, length: wanted) else { return nil }
        return ObjectInfo(size: size, contentType: contentType, prefix: prefix)
    }

    /// A ranged GET (`Range: bytes=<offset>-<offset+length-1>`): 206 gives the bytes, 416 (past
    /// the end) none, 404 nil. A store that ignores Range (200) is cut down here.
    package func read(key: String, offset: Int64, length: Int) throws -> [UInt8]? {
        guard offset >= 0, length >= 0 else { throw StorageError("a read needs a non-negative offset and length") }
        if length == 0 {
            let head = try client.send(method: "HEAD", key: key)
            if head.response.status == 404 { return nil }
            guard head.response.status == 200 else { throw failure("HEAD", key: key, head) }
            return []
        }
        let last = offset + Int64(length) - 1
        let reply = try client.send(method: "GET", key: key, headers: [("Range", "bytes=\(offset)-\(last)")])
        switch reply.response.status {
        case 206:
            return Array(reply.response.body.prefix(length))
        case 200:
            let body = reply.response.body
            guard offset < Int64(body.count) else { return [] }
            return Array(body[Int(offset)..<min(body.count, Int(offset) + length)])
        case 416:
            return []
        case 404 where !Self.bucketIsMissing(reply):
            return nil
        default:
            throw failure("GET", key: key, reply)
        }
    }

    /// A 404 about the bucket (misconfiguration) rather than the object. HEAD answers carry no
    /// body, so a HEAD to a missing bucket still reads as an absent object.
    static func bucketIsMissing(_ reply: RemoteObjectClient.Reply) -> Bool {
        StoreErrorBody.parse(reply.response.body)?.code == "NoSuchBucket"
    }

    /// `GET bkt/key: HTTP 403 SignatureDoesNotMatch (The request signature …) after 1 attempt(s)`.
    func failure(_ method: String, key: String, _ reply: RemoteObjectClient.Reply) -> StorageError {
        StorageError(
            "\(backend.rawValue) \(method) \(client.describe(key)): \(RemoteObjectClient.describe(reply.response))"
                + " after \(reply.attempts) attempt(s)")
    }
}
