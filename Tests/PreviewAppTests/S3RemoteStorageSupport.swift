import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPClient
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Builders shared by the RemoteObjectStorage suites (moto, LocalStack, scripted server).
enum S3Fixture {
    /// Keys that break clients which normalise or re-encode paths: spaces, `+`, `~`, `%`, the same
    /// letter in NFC and NFD, dot segments, doubled slashes, `?`/`#`/`&`/`=`. Compared as UTF-8 bytes
    /// (Swift's `==` would call the NFC and NFD keys equal).
    static let awkwardKeys: [String] = [
        "awk/with space.mp4",
        "awk/plus+sign.mp4",
        "awk/tilde~x.mp4",
        "awk/percent%41%2Fx.mp4",
        "awk/nfc-\u{E9}.mp4",
        "awk/nfd-e\u{301}.mp4",
        "awk/a/./b/../c.mp4",
        "awk//double//slash.mp4",
        "awk/q?x=1&y#z.mp4",
    ]

    static func s3Signer(endpoint: String) -> S3Presigner {
        S3Presigner(
            credentials: SigV4Credentials(
                accessKeyId: S3TestEndpoint.accessKeyId, secretAccessKey: S3TestEndpoint.secretAccessKey),
            region: S3TestEndpoint.region, endpoint: endpoint, addressing: .path, crypto: OpenSSLCrypto())
    }

    static func storage(
        endpoint: String, bucket: String, configuration: RemoteObjectClient.Configuration = .init(),
        signer: (any ObjectURLSigner)? = nil, sleep: @escaping @Sendable (Double) -> Void = { usleep(UInt32($0 * 1e6)) }
    ) -> RemoteObjectStorage {
        let client = RemoteObjectClient(
            signer: signer ?? s3Signer(endpoint: endpoint), bucket: bucket, configuration: configuration, sleep: sleep)
        return RemoteObjectStorage(backend: .s3, client: client, publicBaseURL: nil, grid: ExpiryGrid())
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// PUTs `bytes` to an upload target with exactly its headers, as an uploader app would.
    static func upload(_ target: UploadTarget, _ bytes: [UInt8], extraHeaders: [(String, String)] = []) throws
        -> HTTPClientResponse
    {
        var request = HTTPClientRequest(
            method: "PUT", url: target.url,
            headers: HTTPHeaders(target.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } + extraHeaders),
            body: .bytes(bytes))
        request.timeoutSeconds = 15
        return try HTTPClient().send(request)
    }

    static func spec(_ type: MediaType, bytes: [UInt8]) -> UploadSpec.ObjectSpec {
        UploadSpec.ObjectSpec(type: type, declaredBytes: Int64(bytes.count), maxBytes: Int64(bytes.count))
    }

    /// Stores `bytes` under `key` through a signed upload URL of `storage`, expecting 200.
    static func put(
        _ storage: RemoteObjectStorage, key: String, bytes: [UInt8], type: MediaType = .mp4,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let target = try storage.uploadTarget(key: key, spec: spec(type, bytes: bytes), now: now(), expiresIn: 300)
        let response = try upload(target, bytes)
        try #require(
            response.status == 200, "PUT \(key): \(response.status) \(String(decoding: response.body, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    /// Sorted UTF-8 byte strings, for comparing key sets without Unicode equivalence.
    static func byteKeys(_ keys: [String]) -> [[UInt8]] {
        keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }
}
