import Foundation
import PreviewCore

/// `PUT|GET|HEAD|DELETE /objects/<key>`: the embedded object store, checking SigV4-shaped signed URLs
/// the way S3 does (method, path, expiry, signed headers), with Range support for players.
///
/// A PUT is decided on its head, before any body byte is read (`admitPut`), and its body streams
/// to disk; each object is written once.
struct ObjectHandlers: Sendable {
    let store: LocalObjectStore
    let maxObjectBytes: Int64
    /// Refuses PUTs that would leave the disk under its free-space floor; nil: no floor.
    let diskFloor: FreeDiskFloor?
    let nowSeconds: @Sendable () -> Int64

    /// Decides a PUT from its head alone: a `Content-Length` (411 without one, 400 for 0), the
    /// signature, method and expiry (403), the length against the signed `content-length` and
    /// the URL's signed maximum (413), that the disk keeps its free-space floor after it (503
    /// `insufficient_storage`), that the key is still free (409 `object_exists`) and that no
    /// other PUT of it is streaming (409 `upload_in_progress`). Returns the upload the body
    /// streams into, stored with the content type the URL signed.
    func admitPut(_ head: HTTPRequestHead) throws -> LocalObjectUpload {
        guard let lengthText = head.headers["Content-Length"] else {
            throw APIError(
                .lengthRequired, "send the object with a Content-Length (a chunked body has none)",
                target: "Content-Length")
        }
        guard !lengthText.isEmpty, lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let length = Int64(lengthText)
        else { throw APIError.invalid("Content-Length", "Content-Length must be a decimal number of bytes") }
        let info = try verifiedUpload(head, length: length)
        guard length > 0 else {
            throw APIError.invalid("Content-Length", "an object has at least one byte; this PUT declares none")
        }
        guard let maxText = info.extraQuery.last(where: { $0.name == LocalObjectStore.maxBytesParameter })?.value,
            let max = Int64(maxText)
        else { throw APIError(.signatureInvalid, "this URL does not allow uploads") }
        guard length <= min(max, maxObjectBytes) else {
            throw APIError(.payloadTooLarge, "the object is \(length) bytes; this URL allows \(max)")
        }
        let key = try key(of: info.path)
        if let shortfall = diskFloor?.shortfall(adding: length) {
            Log.warn("upload_refused_disk_low", ["key": key, "reason": shortfall])
            throw APIError(
                .insufficientStorage, "the object store is low on disk space; retry later", retryAfter: 30)
        }
        do {
            return try store.beginUpload(
                key: key, length: length, contentType: info.signedHeaders["content-type"] ?? "application/octet-stream"
            )
        } catch LocalObjectStore.UploadConflict.stored {
            throw Self.alreadyStored
        } catch LocalObjectStore.UploadConflict.unusable(let reason) {
            throw APIError.invalid("key", reason)
        } catch LocalObjectStore.UploadConflict.inProgress {
            throw APIError(
                .uploadInProgress,
                "another upload of this object is in progress; objects are written once (wait for it, then commit)")
        }
    }

    /// Publishes a PUT whose whole body has streamed into the upload `admitPut` returned.
    func put(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let upload = request.bodySink as? LocalObjectUpload else { throw NotStreamed() }
        switch try upload.publish() {
        case .stored: return HTTPResponse(status: 200)
        case .alreadyStored: throw Self.alreadyStored
        case .incomplete(let received):
            throw APIError.invalid("Content-Length", "the body ended after \(received) of \(upload.length) bytes")
        }
    }

    func get(_ request: HTTPRequest, head: Bool) throws -> HTTPResponse {
        let key: String
        var disposition: String?
        if store.publicBaseURL != nil {
            key = try self.key(of: PercentDecoding.lenient(request.path))
        } else {
            key = try self.key(of: try verified(Self.head(of: request), as: head ? "HEAD" : "GET").path)
            // Signed with the rest of the query, so only a URL the server made carries one.
            disposition = QueryString.parse(request.rawQuery).first { $0.0 == AttachmentDisposition.parameter }.flatMap
            {
                AttachmentDisposition.isAcceptable($0.1) ? $0.1 : nil
            }
        }
        guard let path = store.dataPath(key), let size = fileSize(path) else {
            throw APIError(.notFound, "no such object")
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", try store.storedContentType(key) ?? "application/octet-stream")
        headers.add("Accept-Ranges", "bytes")
        if let disposition { headers.add("Content-Disposition", disposition) }
        headers.add("Cache-Control", "private, max-age=\(store.grid.lifetime - store.grid.window)")
        switch ByteRange.resolve(request.headers["Range"], length: size) {
        case .whole:
            return HTTPResponse(status: 200, headers: headers, body: .file(path: path, offset: 0, length: size))
        case .partial(let offset, let length):
            headers.add("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(size)")
            return HTTPResponse(status: 206, headers: headers, body: .file(path: path, offset: offset, length: length))
        case .unsatisfiable:
            throw APIFailure(
                APIError(.rangeNotSatisfiable, "the range starts past the object's \(size) bytes", target: "Range"),
                headers: HTTPHeaders([("Content-Range", "bytes */\(size)")]))
        }
    }

    /// Deletes an object with a URL signed for DELETE (as S3 does; deleting a missing object is
    /// 204 too). The service itself deletes local objects directly; this serves other clients
    /// of the store, such as the object client's tests. A key that can name no object (a
    /// folder of others, a name too long) is 204 as well.
    func delete(_ request: HTTPRequest) throws -> HTTPResponse {
        let key = try key(of: try verified(Self.head(of: request), as: "DELETE").path)
        // A key naming a folder of other objects names no object: nothing to delete.
        if !store.namesFolder(key) { try store.delete(key: key) }
        return HTTPResponse(status: 204)
    }

    private static func head(of request: HTTPRequest) -> HTTPRequestHead {
        HTTPRequestHead(
            method: request.method, path: request.path, rawQuery: request.rawQuery, headers: request.headers)
    }

    private static let alreadyStored = APIError(
        .objectExists, "this object is already stored; objects are written once (commit the upload)")

    /// The PUT's signed URL, checked on the head. A genuine URL whose signed `content-length`
    /// differs from the one sent is a size problem (413), not a signature one: that is checked
    /// by verifying once more with the URL's own signed maximum as the length (an upload with a
    /// declared size signs it as both).
    private func verifiedUpload(_ head: HTTPRequestHead, length: Int64) throws(APIError) -> SignedURLInfo {
        let result = verify(head, as: "PUT")
        if case .failure(.signatureMismatch) = result,
            let claimed = QueryString.parse(head.rawQuery).last(where: { $0.0 == LocalObjectStore.maxBytesParameter }),
            let signedLength = Int64(claimed.1), signedLength != length
        {
            var withSignedLength = head
            withSignedLength.headers.set("Content-Length", String(signedLength))
            switch verify(withSignedLength, as: "PUT") {
            case .success, .failure(.expired):
                throw APIError(
                    .payloadTooLarge, "this URL takes exactly \(signedLength) bytes; the request declares \(length)",
                    target: "Content-Length")
            case .failure: break
            }
        }
        return try checked(result, method: "PUT")
    }

    private func verified(_ head: HTTPRequestHead, as method: String) throws(APIError) -> SignedURLInfo {
        try checked(verify(head, as: method), method: method)
    }

    private func verify(_ head: HTTPRequestHead, as method: String) -> Result<SignedURLInfo, SigV4VerificationFailure> {
        var head = head
        head.method = method
        return store.verifier.verify(head, now: nowSeconds(), secretForAccessKey: store.secret(forAccessKey:))
    }

    private func checked(
        _ result: Result<SignedURLInfo, SigV4VerificationFailure>, method: String
    ) throws(APIError) -> SignedURLInfo {
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

    /// A PUT reached `respond` without the upload its admission streams into (a server that
    /// did not honour `.stream`): a bug, answered as `internal`.
    private struct NotStreamed: Error, CustomStringConvertible {
        var description: String { "an object PUT arrived without its streamed upload" }
    }
}
