import PreviewCore

/// Which object store to use and how to reach and sign for it; shared by `serve` and
/// `presign`. Credentials come from the environment only (never flags: they would show in
/// `ps`), with the standard AWS and Google variables as fallbacks.
public struct StorageOptions: Sendable, Equatable {
    public enum Backend: String, Sendable { case local, s3, gcs }
    public enum Addressing: String, Sendable {
        case path
        case virtual
        /// The endpoint's host is the bucket itself (a GCS bucket-bound CNAME or CDN domain).
        case bucketHost = "bucket-host"
    }
    public enum GCSSigner: String, Sendable { case rsa, hmac }

    public var backend = Backend.local
    public var bucket: String?
    /// Custom endpoint (`https://s3.example.com`, `http://127.0.0.1:9000`); nil = the SDK default.
    public var endpoint: String?
    /// S3 region (default us-east-1; `auto` for R2); GCS scope region (default auto).
    public var region: String?
    /// nil = the SDK's automatic choice.
    public var addressing: Addressing?
    /// nil = rsa when a key file is configured, else hmac.
    public var gcsSigner: GCSSigner?

    public var s3AccessKeyId: String?
    public var s3SecretAccessKey: String?
    public var s3SessionToken: String?
    /// Service-account JSON key file.
    public var gcsKeyFile: String?
    public var gcsHMACAccessId: String?
    public var gcsHMACSecret: String?

    public init() {}

    package static let specs: [OptionSpec] = [
        OptionSpec(
            flag: "storage", environment: "STREAMPREVIEW_STORAGE",
            help: "object store: local, s3 or gcs (default local)"),
        OptionSpec(flag: "bucket", environment: "STREAMPREVIEW_BUCKET", help: "bucket (s3, gcs)"),
        OptionSpec(
            flag: "endpoint", environment: "STREAMPREVIEW_STORAGE_ENDPOINT",
            help: "custom storage endpoint URL (default: the provider's)"),
        OptionSpec(
            flag: "region", environment: "STREAMPREVIEW_STORAGE_REGION",
            help: "S3 region (default us-east-1, auto for R2); GCS scope region (default auto)"),
        OptionSpec(
            flag: "addressing", environment: "STREAMPREVIEW_STORAGE_ADDRESSING",
            help: "path, virtual or bucket-host (default: as the SDKs choose)"),
        OptionSpec(
            flag: "gcs-signer", environment: "STREAMPREVIEW_GCS_SIGNER",
            help: "rsa or hmac (default rsa with a key file, else hmac)"),
    ]

    /// Names of the credential variables, in order of preference.
    package static let credentialVariables = """
        Credentials (environment only): STREAMPREVIEW_S3_ACCESS_KEY_ID, STREAMPREVIEW_S3_SECRET_ACCESS_KEY,
        STREAMPREVIEW_S3_SESSION_TOKEN (else AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN);
        STREAMPREVIEW_GCS_KEY_FILE (else GOOGLE_APPLICATION_CREDENTIALS); STREAMPREVIEW_GCS_HMAC_ACCESS_ID,
        STREAMPREVIEW_GCS_HMAC_SECRET.
        """

    package static func parse(_ options: ParsedOptions, environment: [String: String]) throws(UsageError)
        -> StorageOptions
    {
        var storage = StorageOptions()
        if let name = options.string("storage") {
            guard let backend = Backend(rawValue: name) else {
                throw UsageError("--storage must be local, s3 or gcs, not '\(name)'")
            }
            storage.backend = backend
        }
        storage.bucket = options.string("bucket")
        storage.endpoint = try options.string("endpoint").map { url throws(UsageError) in
            try OptionValue.baseURL(url, flag: "endpoint")
        }
        storage.region = options.string("region")
        if let name = options.string("addressing") {
            guard let addressing = Addressing(rawValue: name) else {
                throw UsageError("--addressing must be path, virtual or bucket-host, not '\(name)'")
            }
            storage.addressing = addressing
        }
        if let name = options.string("gcs-signer") {
            guard let signer = GCSSigner(rawValue: name) else { throw UsageError("--gcs-signer must be rsa or hmac") }
            storage.gcsSigner = signer
        }
        func env(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        storage.s3AccessKeyId = env("STREAMPREVIEW_S3_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID")
        storage.s3SecretAccessKey = env("STREAMPREVIEW_S3_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY")
        storage.s3SessionToken = env("STREAMPREVIEW_S3_SESSION_TOKEN", "AWS_SESSION_TOKEN")
        storage.gcsKeyFile = env("STREAMPREVIEW_GCS_KEY_FILE", "GOOGLE_APPLICATION_CREDENTIALS")
        storage.gcsHMACAccessId = env("STREAMPREVIEW_GCS_HMAC_ACCESS_ID")
        storage.gcsHMACSecret = env("STREAMPREVIEW_GCS_HMAC_SECRET")
        if storage.backend != .local, storage.bucket == nil {
            throw UsageError("--bucket is required with --storage \(storage.backend.rawValue)")
        }
        return storage
    }
}
