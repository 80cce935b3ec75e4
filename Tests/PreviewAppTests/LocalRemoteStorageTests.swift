import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPClient
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The object client (HEAD, ranged GET, DELETE over libcurl, each request presigned) against
/// the third backend, the embedded local store, served by the built binary: its verifier
/// checks every signature, so this proves the client and the local signer agree on the wire.
@Suite struct LocalRemoteStorageTests {
    @Test func theObjectClientInspectsReadsAndDeletesObjectsOfTheLocalStore() throws {
        let service = try ServiceProcess()
        defer { _ = service.stop() }
        let secret = try String(contentsOfFile: service.dataDirectory + "/storage-secret", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let url = try #require(StorageEndpointURL(service.baseURL))
        let signer = LocalStoreSigner(scheme: url.scheme, host: url.authority, secret: secret, crypto: OpenSSLCrypto())
        let storage = RemoteObjectStorage(
            backend: .local, client: RemoteObjectClient(signer: signer, bucket: ""), publicBaseURL: nil,
            grid: ExpiryGrid())

        // Put an object with an awkward key through a signed PUT, as an uploader would.
        // (The local store keeps keys as file paths, so it refuses `.`, `..` and empty segments.)
        let key = "previews/7/a b+c~%41/é &=!.mp4"
        let bytes = Array(0..<200).map { UInt8($0) }
        let put = try signer.presign(
            ObjectSignRequest(
                method: "PUT", bucket: "", key: key, expiresSeconds: 60,
                signingTime: Int64(Date().timeIntervalSince1970),
                headers: [("content-type", "video/mp4")], query: [(LocalStoreSigner.maxBytesParameter, "1000")]))
        var request = HTTPClientRequest(method: "PUT", url: put, body: .bytes(bytes))
        request.headers.add("Content-Type", "video/mp4")
        #expect(try HTTPClient().send(request).status == 200)

        let info = try #require(try storage.inspect(key: key, prefixLength: 16))
        #expect(info.size == 200 && info.contentType == "video/mp4" && info.prefix == Array(bytes[0..<16]))
        #expect(try storage.read(key: key, offset: 190, length: 50) == Array(bytes[190...]))
        try storage.delete(key: key)
        #expect(try storage.inspect(key: key, prefixLength: 16) == nil)
        try storage.delete(key: key)  // a missing object deletes fine

        // A wrong secret is refused by the store's verifier, and nothing is deleted.
        let forged = LocalStoreSigner(scheme: url.scheme, host: url.authority, secret: "wrong", crypto: OpenSSLCrypto())
        let other = RemoteObjectStorage(
            backend: .local, client: RemoteObjectClient(signer: forged, bucket: ""), publicBaseURL: nil,
            grid: ExpiryGrid())
        #expect(throws: StorageError.self) { try other.read(key: key, offset: 0, length: 1) }
    }
}
