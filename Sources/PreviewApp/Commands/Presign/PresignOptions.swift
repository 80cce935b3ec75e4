import PreviewCore
import PreviewServer

/// `streampreview presign`: print one signed object URL, as `aws s3 presign` and
/// `gsutil signurl` do, with the storage configuration `serve` uses.
struct PresignOptions: Sendable, Equatable {
    /// A `--header` or `--query` pair, as given (the signer canonicalises it).
    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    static let methods: Set<String> = ["GET", "PUT", "HEAD", "DELETE", "POST"]

    var storage = StorageOptions()
    var method = "GET"
    var key = ""
    var expires = 3600
    /// Unix seconds from `--at`; nil signs at the current time.
    var signingTime: Int64?
    var headers: [Field] = []
    var query: [Field] = []
    /// Where `serve` keeps its storage secret (local store only).
    var dataDirectory = "./.streampreview"

    static let specs: [OptionSpec] =
        StorageOptions.specs + [
            OptionSpec(flag: "method", environment: nil, help: "GET, PUT, HEAD, DELETE or POST (default GET)"),
            OptionSpec(flag: "key", environment: nil, help: "object key, signed as its exact UTF-8 bytes (required)"),
            OptionSpec(flag: "expires", environment: nil, help: "seconds the URL is valid, 1 to 604800 (default 3600)"),
            OptionSpec(flag: "at", environment: nil, help: "signing time, 2025-01-15T12:34:56Z (default now)"),
            OptionSpec(
                flag: "header", environment: nil, help: "'Name: value' the client must send (repeatable)", repeats: true
            ),
            OptionSpec(
                flag: "query", environment: nil, help: "'name=value' signed query parameter (repeatable)", repeats: true
            ),
            OptionSpec(
                flag: "data-dir", environment: "STREAMPREVIEW_DATA_DIR",
                help: "serve's data dir, for --storage local (default ./.streampreview)"),
        ]

    static var help: String {
        """
        Usage: streampreview presign --storage s3|gcs|local --bucket B --key K [--method GET|PUT|HEAD|DELETE|POST]
                 [--expires SECONDS] [--at 2025-01-15T12:34:56Z] [--header 'Name: value']... [--query 'name=value']...
                 [--endpoint URL] [--region R] [--addressing path|virtual|bucket-host] [--gcs-signer rsa|hmac]

        Prints one presigned URL on stdout: AWS SigV4 for s3 (AWS, R2 with --region auto, MinIO),
        GCS V4 for gcs (GOOG4-RSA-SHA256 with a service-account key, GOOG4-HMAC-SHA256 with an
        HMAC key), the embedded store's signature for local (--endpoint is then the server's base
        URL, default http://127.0.0.1:8080). --at fixes the signing time, to reproduce a
        SignatureDoesNotMatch. Without --endpoint, s3 signs for AWS as botocore does and gcs for
        https://storage.googleapis.com. A GCS resumable upload start is --method POST
        --header 'x-goog-resumable: start'.

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))

        \(StorageOptions.credentialVariables)
        """
    }

    static func parse(_ options: ParsedOptions, environment: [String: String]) throws(UsageError) -> PresignOptions {
        var presign = PresignOptions()
        presign.storage = try StorageOptions.parse(options, environment: environment)
        if let method = options.string("method") {
            guard Self.methods.contains(method.uppercased()) else {
                throw UsageError("--method must be GET, PUT, HEAD, DELETE or POST, not '\(method)'")
            }
            presign.method = method.uppercased()
        }
        guard let key = options.string("key") else { throw UsageError("--key is required") }
        if let problem = ObjectKeyRule.problem(with: key) { throw UsageError("--key: \(problem)") }
        presign.key = key
        presign.expires = Int(try options.int64("expires", default: 3600, range: 1...604_800))
        if let at = options.string("at") {
            guard let time = SigningTimestamp.parseISO8601(at) else {
                throw UsageError("--at must be a UTC time like 2025-01-15T12:34:56Z, not '\(at)'")
            }
            presign.signingTime = time
        }
        for header in options.all("header") {
            guard let colon = header.firstIndex(of: ":") else {
                throw UsageError("--header must be 'Name: value', not '\(header)'")
            }
            let name = header[..<colon].trimmingSpacesAndTabs()
            guard !name.isEmpty else { throw UsageError("--header '\(header)' has no name") }
            presign.headers.append(Field(name: name, value: String(header[header.index(after: colon)...])))
        }
        for parameter in options.all("query") {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first, !name.isEmpty else {
                throw UsageError("--query must be 'name=value', not '\(parameter)'")
            }
            presign.query.append(Field(name: String(name), value: parts.count > 1 ? String(parts[1]) : ""))
        }
        if let dir = options.string("data-dir") { presign.dataDirectory = dir }
        return presign
    }
}
