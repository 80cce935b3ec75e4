import Foundation
import PreviewTestSupport
import Synchronization
import Testing

/// `streampreview presign` against the official SDKs, with a frozen clock (2025-01-15T12:34:56Z).
///
/// `scripts/conformance/sdk_urls.py` runs in `.build/conformance-venv` (created from PyPI by
/// `scripts/conformance/setup-venv.sh` when missing) and prints, per case, the SDK's URL and the
/// presign command line that must print it:
/// - S3: boto3/botocore `generate_presigned_url` over AWS virtual and path style, regional and
///   global hosts, dotted buckets, R2 (`--region auto`), custom `http://127.0.0.1:PORT` and host
///   endpoints, endpoints written with their scheme's default port (`:443`, `:80`); GET, PUT, PUT
///   with signed Content-Type (and exact Content-Length), the write-once upload (`If-None-Match: *`
///   too), HEAD, DELETE, `response-*` parameters, session tokens.
/// - GCS RSA: google-cloud-storage `Blob.generate_signed_url(version="v4")` with a generated
///   service-account key; path, virtual-hosted, CDN bucket-host and custom endpoints; GET, PUT with
///   Content-Type and `x-goog-content-length-range`, the write-once upload
///   (`x-goog-if-generation-match: 0` too), HEAD, DELETE, resumable-upload start. Endpoints written
///   with their default port are compared with the SDK's URL for the endpoint without it: clients
///   leave that port out of `Host`, and the SDK given `:443` signs `host:…:443` verbatim.
/// - GCS HMAC: no SDK signs GOOG4-HMAC-SHA256 offline, so these URLs come from a *reference
///   implementation* of Google's published V4 algorithm in the script, not from an SDK.
/// Object keys cover spaces, `+ ~ %`, `&=`, NFC and NFD forms, emoji, `!$'()*,;:@[]`,
/// `a/./b/../c`, leading, trailing and doubled slashes.
///
/// Needs network to PyPI on first run; without the SDKs the suite fails rather than skips.
@Suite("Presign conformance with the official SDKs", .serialized)
struct ConformancePresignTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Built once for the suite: setting up the venv and running the SDKs takes seconds.
    static let matrix = Result { try ConformanceSDK.matrix(repositoryRoot: repositoryRoot) }

    /// Runs every case of `oracle` through the binary (in parallel) and returns the failures.
    func mismatches(oracle: String) throws -> (compared: Int, failures: [String]) {
        let matrix = try Self.matrix.get()
        let cases = matrix.cases.filter { $0.oracle == oracle }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: cases.count) { index in
            let item = cases[index]
            let failure: String?
            do {
                let result = try ConformanceSDK.runBinary(item.args, environment: item.env)
                let ours = result.stdout.trimmingCharacters(in: .newlines)
                if result.status != 0 || result.stdout.filter({ $0 == "\n" }).count != 1 {
                    failure = "\(item.id): exit \(result.status), stderr \(result.stderr)"
                } else if ours == item.url
                    || (item.compare == "params" && ConformanceSDK.sameParameters(ours, item.url))
                {
                    failure = nil
                } else {
                    failure = "\(item.id)\n  sdk:  \(item.url)\n  ours: \(ours)"
                }
            } catch {
                failure = "\(item.id): \(error)"
            }
            if let failure { failures.withLock { $0.append(failure) } }
        }
        return (cases.count, failures.withLock { $0 })
    }

    @Test func theSDKVenvInstallsAndTheMatrixCoversEveryOracle() throws {
        let matrix = try Self.matrix.get()
        print(
            "conformance: \(matrix.cases.count) URLs from \(matrix.sdks.sorted { $0.key < $1.key }), "
                + "venv \(String(format: "%.1f", matrix.setupSeconds)) s, SDKs \(String(format: "%.1f", matrix.sdkSeconds)) s"
        )
        #expect(matrix.sdks["botocore"]?.hasPrefix("1.43.") == true)
        #expect(matrix.sdks["google-cloud-storage"]?.hasPrefix("3.") == true)
        #expect(matrix.cases.filter { $0.oracle == "botocore" }.count >= 500)
        #expect(matrix.cases.filter { $0.oracle == "google-cloud-storage" }.count >= 150)
        #expect(matrix.cases.filter { $0.oracle == "reference-goog4-hmac" }.count >= 150)
        for oracle in ["botocore", "google-cloud-storage", "reference-goog4-hmac"] {
            let cases = matrix.cases.filter { $0.oracle == oracle }
            #expect(cases.contains { $0.id.contains("-default-port") }, "\(oracle): an endpoint with its default port")
            #expect(cases.contains { $0.id.contains("/put-write-once/") }, "\(oracle): the write-once upload")
        }
    }

    @Test func s3PresignedURLsAreByteIdenticalToBotocore() throws {
        let (compared, failures) = try mismatches(oracle: "botocore")
        #expect(compared > 0)
        #expect(
            failures.isEmpty, "\(failures.count) of \(compared) differ:\n\(failures.prefix(10).joined(separator: "\n"))"
        )
    }

    @Test func gcsRSAPresignedURLsAreByteIdenticalToGoogleCloudStorage() throws {
        let (compared, failures) = try mismatches(oracle: "google-cloud-storage")
        #expect(compared > 0)
        #expect(
            failures.isEmpty, "\(failures.count) of \(compared) differ:\n\(failures.prefix(10).joined(separator: "\n"))"
        )
    }

    /// GOOG4-HMAC-SHA256: compared with the reference implementation, not an SDK (none signs offline).
    @Test func gcsHMACPresignedURLsMatchTheReferenceImplementationOfGooglesV4Algorithm() throws {
        let (compared, failures) = try mismatches(oracle: "reference-goog4-hmac")
        #expect(compared > 0)
        #expect(
            failures.isEmpty, "\(failures.count) of \(compared) differ:\n\(failures.prefix(10).joined(separator: "\n"))"
        )
    }
}
