package import Foundation
package import PreviewCore
import PreviewCrypto

/// Builds the object-URL signer of the configured backend: the one place that knows how
/// storage options, credentials and key files become an `ObjectURLSigner` (used by
/// `presign`, and by `serve` for upload and playback URLs).
package enum SignerFactory {
    /// The embedded store's signing inputs: the server's base URL and its storage secret.
    package struct Local: Sendable {
        package var baseURL: String
        package var secret: String
        package init(baseURL: String, secret: String) {
            self.baseURL = baseURL
            self.secret = secret
        }
    }

    /// - Parameters:
    ///   - local: required for `--storage local` only.
    ///   - readFile: reads the service-account key file (a seam for tests).
    package static func make(
        _ storage: StorageOptions, local: Local? = nil, crypto: any CryptoPrimitives = OpenSSLCrypto(),
        readFile: (String) throws -> Data = { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    ) throws -> any ObjectURLSigner {
        switch storage.backend {
        case .local:
            guard let local, let url = StorageEndpointURL(local.baseURL) else {
                throw AppError("the local store needs the server's base URL and storage secret", exitCode: .usage)
            }
            return LocalStoreSigner(scheme: url.scheme, host: url.authority, secret: local.secret, crypto: crypto)
        case .s3:
            guard let accessKeyId = storage.s3AccessKeyId, let secret = storage.s3SecretAccessKey else {
                throw AppError(
                    "S3 signing needs STREAMPREVIEW_S3_ACCESS_KEY_ID and STREAMPREVIEW_S3_SECRET_ACCESS_KEY "
                        + "(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)", exitCode: .usage)
            }
            let addressing: S3Addressing =
                switch storage.addressing {
                case nil: .auto
                case .path: .path
                case .virtual: .virtual
                case .bucketHost: .bucketHost
                }
            if let endpoint = storage.endpoint, StorageEndpointURL(endpoint) == nil {
                throw AppError("--endpoint '\(endpoint)' is not an http(s) base URL", exitCode: .usage)
            }
            return S3Presigner(
                credentials: SigV4Credentials(
                    accessKeyId: accessKeyId, secretAccessKey: secret, sessionToken: storage.s3SessionToken),
                region: storage.region ?? S3Presigner.defaultRegion, endpoint: storage.endpoint, addressing: addressing,
                crypto: crypto)
        case .gcs:
            return try makeGCS(storage, crypto: crypto, readFile: readFile)
        }
    }

    /// The headers an upload URL of `backend` signs, which the client must send as given
    /// (the API returns them as `movieHeaders` / `thumbnailHeaders`):
    /// - S3: `Content-Type`, the exact declared `Content-Length` (sizes must be declared, see
    ///   `declaredSizes(for:)`) and `If-None-Match: *` (S3 answers 412 when the key exists);
    /// - GCS: `Content-Type`, `x-goog-content-length-range: 0,<maxBytes>` and
    ///   `x-goog-if-generation-match: 0` (GCS answers 412 when the object exists);
    /// - local: `Content-Type` and the declared `Content-Length` (the store signs `maxBytes` as
    ///   its `x-sp-max-bytes` query parameter).
    static func uploadHeaders(
        for backend: StorageOptions.Backend, contentType: String, declaredBytes: Int64?, maxBytes: Int64
    ) -> [(name: String, value: String)] {
        switch backend {
        case .local:
            return [("Content-Type", contentType)] + (declaredBytes.map { [("Content-Length", String($0))] } ?? [])
        case .s3:
            return S3Presigner.uploadHeaders(contentType: contentType, declaredBytes: declaredBytes)
        case .gcs:
            return GCSV4Presigner.uploadHeaders(contentType: contentType, maxBytes: maxBytes)
        }
    }

    /// Whether `backend` can bound an upload whose size the client did not declare: S3 query
    /// auth signs no size range (only an exact `Content-Length`), so S3 needs declared sizes;
    /// GCS signs `x-goog-content-length-range` and the local store its `x-sp-max-bytes`.
    package static func declaredSizes(for backend: StorageOptions.Backend) -> UploadPolicy.DeclaredSizes {
        backend == .s3 ? .required : .optional
    }

    private static func makeGCS(
        _ storage: StorageOptions, crypto: any CryptoPrimitives, readFile: (String) throws -> Data
    ) throws -> any ObjectURLSigner {
        let credentials: GCSV4Credentials
        switch storage.gcsSigner ?? (storage.gcsKeyFile != nil ? .rsa : .hmac) {
        case .rsa:
            guard let path = storage.gcsKeyFile else {
                throw AppError(
                    "GCS RSA signing needs STREAMPREVIEW_GCS_KEY_FILE (or GOOGLE_APPLICATION_CREDENTIALS)",
                    exitCode: .usage)
            }
            let key = try ServiceAccountKey.load(path: path, readFile: readFile)
            let privateKey = try RSAPrivateKey(pem: key.privateKey)
            credentials = .serviceAccount(email: key.clientEmail, sign: { try privateKey.signSHA256($0) })
        case .hmac:
            guard let accessId = storage.gcsHMACAccessId, let secret = storage.gcsHMACSecret else {
                throw AppError(
                    "GCS HMAC signing needs STREAMPREVIEW_GCS_HMAC_ACCESS_ID and STREAMPREVIEW_GCS_HMAC_SECRET "
                        + "(or a service-account key file in STREAMPREVIEW_GCS_KEY_FILE)", exitCode: .usage)
            }
            credentials = .hmac(accessId: accessId, secret: secret)
        }
        let addressing: GCSAddressing =
            switch storage.addressing {
            case nil, .path: .path
            case .virtual: .virtual
            case .bucketHost: .bucketHost
            }
        do {
            return try GCSV4Presigner(
                credentials: credentials, endpoint: storage.endpoint,
                region: storage.region ?? GCSV4Presigner.defaultRegion, addressing: addressing, crypto: crypto)
        } catch {
            throw AppError(error.description, exitCode: .usage)
        }
    }
}

/// The fields of a Google service-account key file (JSON, "Creating service account keys")
/// that signing uses.
struct ServiceAccountKey: Decodable, Equatable {
    var type: String?
    var clientEmail: String
    var privateKey: String

    enum CodingKeys: String, CodingKey {
        case type
        case clientEmail = "client_email"
        case privateKey = "private_key"
    }

    static func load(path: String, readFile: (String) throws -> Data) throws -> ServiceAccountKey {
        let data: Data
        do {
            data = try readFile(path)
        } catch {
            throw AppError("cannot read the GCS key file \(path): \(error.localizedDescription)")
        }
        let key: ServiceAccountKey
        do {
            key = try JSONDecoder().decode(ServiceAccountKey.self, from: data)
        } catch {
            throw AppError("the GCS key file \(path) is not a service-account JSON key (client_email, private_key)")
        }
        if let type = key.type, type != "service_account" {
            throw AppError("the GCS key file \(path) is of type '\(type)', not service_account")
        }
        return key
    }
}
