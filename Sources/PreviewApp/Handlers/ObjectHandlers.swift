import Foundation
import PreviewCore

/// `PUT|GET|HEAD|DELETE /objects/<key>`: the embedded object store, checking SigV4-shaped signed URLs
/// the way S3 does (method, path, expiry, signed headers), with Range support for players.
struct ObjectHandlers: Sendable {
    let store: LocalObjectStore
    let maxObjectBytes: Int64
    let nowSeconds: @Sendable () -> Int64

    /// The most bytes a PUT may send, read from its (not yet verified) URL: a forged larger
    /// limit fails the signature check afterwards, and nothing is ever above the global limit.
    func bodyLimit(rawQuery: String) -> Int {
        let claimed =
            QueryString.parse(rawQuery).last { $0.0 == LocalObjectStore.maxBytesParameter }
            .flatMap { Int64($0.1) } ?? 0
        return Int(max(0, min(claimed, maxObjectBytes)))
    }

    func put(_ request: HTTPRequest) throws -> HTTPResponse {
        if request.bodyTooLarge {
            // A URL that allows no upload at all (a GET URL) is a signature problem, not a size one.
            let allowsUpload = QueryString.parse(request.rawQuery).contains {
                $0.0 == LocalObjectStore.maxBytesParameter
            }
            guard allowsUpload else { throw APIError(.signatureInvalid, "this URL does not allow uploads") }
            throw APIError(.payloadTooLarge, "the object is larger than this URL allows")
        }
        let info = try verified(request, as: "PUT")
        guard let maxText = info.extraQuery.last(where: { $0.name == LocalObjectStore.maxBytesParameter })?.value,
            let max = Int64(maxText)
        else { throw APIError(.signatureInvalid, "this URL does not allow uploads") }
        guard Int64(request.body.count) <= max else {
            throw APIError(.payloadTooLarge, "the object is larger than this URL allows")
        }
        let contentType =
            info.signedHeaders["content-type"] ?? request.headers["Content-Type"] ?? "application/octet-stream"
        try store.write(key: try key(of: info.path), bytes: request.body, contentType: contentType)
        return HTTPResponse(status: 200)
    }

    func get(_ request: HTTPRequest, head: Bool) throws -> HTTPResponse {
        let key: String
        if store.publicBaseURL != nil {
            key = try self.key(of: PercentDecoding.lenient(request.path))
        } else {
            key = try self.key(of: try verified(request, as: head ? "HEAD" : "GET").path)
        }
        guard let path = store.dataPath(key), let size = fileSize(path) else {
            throw APIError(.notFound, "no such object")
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", store.storedContentType(key) ?? "application/octet-stream")
        headers.add("Accept-Ranges", "bytes")
        headers.add("Cache-Control", "private, max-age=\(store.grid.lifetime - store.grid.window)")
        switch ByteRange.resolve(request.headers["Range"], length: size) {
        case .whole:
            return HTTPResponse(status: 200, headers: headers, body: .file(path: path, offset: 0, length: size))
        case .partial(let offset, let length):
            headers.add("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(size)")
            return HTTPResponse(status: 206, headers: headers, body: .file(path: path, offset: offset, length: length))
        case .unsatisfiable:
            headers.remove("Content-Type")
            headers.add("Content-Range", "bytes */\(size)")
            return HTTPResponse(status: 416, headers: headers)
        }
    }

    /// Deletes an object with a URL signed for DELETE (as S3 does; deleting a missing object is
    /// 204 too). The service itself deletes local objects directly; this serves other clients
    /// of the store, such as the object client's tests.
    func delete(_ request: HTTPRequest) throws -> HTTPResponse {
        try store.delete(key: try key(of: try verified(request, as: "DELETE").path))
        return HTTPResponse(status: 204)
    }

    private func verified(_ request: HTTPRequest, as method: String) throws(APIError) -> SignedURLInfo {
        let result = store.verifier.verify(
            method: method, rawPath: request.path, rawQuery: request.rawQuery, headers: request.headers,
            now: nowSeconds(), secretForAccessKey: store.secret(forAccessKey:))
        switch result {
        case .success(let info): return info
        case .failure(.expired): throw APIError(.urlExpired, "this URL has expired")
        case .failure(.notYetValid): throw APIError(.signatureInvalid, "this URL is not valid yet")
        case .failure(.missingSignedHeader(let name)):
            throw APIError(.signatureInvalid, "send the signed header \(name) as given with the URL", target: name)
        case .failure(let failure):
            Log.info("object_signature_refused", ["method": method, "reason": "\(failure)"])
            throw APIError(.signatureInvalid, "the URL's signature does not match this request")
        }
    }

    /// The object key from a decoded path (`/objects/<key>`), as strict UTF-8.
    private func key(of path: [UInt8]) throws(APIError) -> String {
        let prefix = Array(Route.objectsPrefix.utf8)
        guard path.starts(with: prefix), let key = String(validating: path.dropFirst(prefix.count), as: UTF8.self),
            ObjectKeyPath.isSafe(key)
        else { throw APIError(.notFound, "no such object") }
        return key
    }

    private func fileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }
}
