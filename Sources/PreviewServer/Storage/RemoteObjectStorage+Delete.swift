import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPClient

/// Deleting objects from the bucket: one DELETE per key, or S3's DeleteObjects for many.
extension RemoteObjectStorage {
    /// DELETE; a 404 (already gone) counts as done, as does S3's 204 for a missing key; a
    /// missing bucket does not.
    package func delete(key: String) throws {
        let reply = try client.send(method: "DELETE", key: key)
        switch reply.response.status {
        case 200, 202, 204: return
        case 404 where !Self.bucketIsMissing(reply): return
        default: throw failure("DELETE", key: key, reply)
        }
    }

    /// S3: DeleteObjects requests of up to `S3DeleteObjects.maxKeys` keys each, split evenly so
    /// that up to `concurrency` requests share the keys (S3 deletes a request's keys one after
    /// another, so smaller requests side by side finish sooner); keys XML cannot carry go one
    /// by one; GCS (and the local store reached over HTTP): one DELETE per key.
    /// Either way at most `concurrency` requests are in flight. A request that fails as a whole
    /// (403, 5xx after retries, a timeout, no connection) fails each of its keys.
    package func delete(keys: [String], concurrency: Int) -> [String: StorageError] {
        let jobs = deleteJobs(Self.distinct(keys), concurrency: max(1, concurrency))
        let results = BoundedWork.map(count: jobs.count, concurrency: concurrency) { index -> [String: StorageError] in
            switch jobs[index] {
            case .single(let key):
                return self.deleteOneByOne([key])
            case .batch(let keys, let signer):
                return self.deleteObjects(keys, signer: signer)
            }
        }
        var failures: [String: StorageError] = [:]
        for result in results { failures.merge(result) { first, _ in first } }
        return failures
    }

    private enum DeleteJob: Sendable {
        case single(String)
        case batch([String], S3Presigner)
    }

    /// Batches for S3 (whose signer is always an `S3Presigner`); single DELETEs for the rest and
    /// for keys a batch cannot name (a DELETE names them in its path, or its signer says why not).
    private func deleteJobs(_ keys: [String], concurrency: Int) -> [DeleteJob] {
        guard backend == .s3, let s3 = signer as? S3Presigner else { return keys.map(DeleteJob.single) }
        var batchable: [String] = []
        var alone: [DeleteJob] = []
        for key in keys {
            if S3DeleteObjects.canCarry(key) && ObjectKeyRule.problem(with: key) == nil {
                batchable.append(key)
            } else {
                alone.append(.single(key))
            }
        }
        let requests = max(
            (batchable.count + S3DeleteObjects.maxKeys - 1) / S3DeleteObjects.maxKeys,
            min(concurrency, (batchable.count + Self.smallestSplit - 1) / Self.smallestSplit))
        let size = max(1, (batchable.count + requests - 1) / max(1, requests))
        let batches = stride(from: 0, to: batchable.count, by: size).map { start in
            DeleteJob.batch(Array(batchable[start..<min(start + size, batchable.count)]), s3)
        }
        return batches + alone
    }

    /// Keys below which a DeleteObjects request is not split further for concurrency.
    static let smallestSplit = 100

    /// `delete(key:)` for each key in turn; the keys it failed for, with why.
    private func deleteOneByOne(_ keys: [String]) -> [String: StorageError] {
        var failures: [String: StorageError] = [:]
        for key in keys {
            do {
                try delete(key: key)
            } catch {
                failures[key] = error as? StorageError ?? StorageError("DELETE \(client.describe(key)): \(error)")
            }
        }
        return failures
    }

    /// One DeleteObjects request (`POST /<bucket>?delete`, signed with `Content-MD5` and
    /// `Content-Type`); the keys it did not delete, with why.
    private func deleteObjects(_ keys: [String], signer: S3Presigner) -> [String: StorageError] {
        let body = S3DeleteObjects.requestBody(keys: keys)
        let target = "\(bucket)?delete (\(keys.count) keys)"
        let failAll = { (error: StorageError) in Dictionary(keys.map { ($0, error) }) { first, _ in first } }
        guard let digest = try? OpenSSLCrypto().md5(body) else {
            // An OpenSSL without MD5 (a FIPS-only provider) cannot make the required Content-MD5.
            return deleteOneByOne(keys)
        }
        let md5 = Data(digest).base64EncodedString()
        let reply: RemoteObjectClient.Reply
        do {
            let headers = [("Content-MD5", md5), ("Content-Type", "application/xml")]
            reply = try client.send(method: "POST", target: target, headers: headers, body: .bytes(body)) { time in
                try signer.presignBucket(
                    ObjectSignRequest(
                        method: "POST", bucket: bucket, key: "",
                        expiresSeconds: client.configuration.signedLifetimeSeconds, signingTime: time,
                        headers: headers.map { (name: $0.0, value: $0.1) }, query: [("delete", "")]))
            }
        } catch let error as StorageError {
            return failAll(error)
        } catch {
            return failAll(StorageError("s3 DeleteObjects \(target): \(error)"))
        }
        guard reply.response.status == 200 else {
            return failAll(
                StorageError(
                    "s3 DeleteObjects \(target): \(RemoteObjectClient.describe(reply.response))"
                        + " after \(reply.attempts) attempt(s)"))
        }
        var failures: [String: StorageError] = [:]
        for (key, outcome) in zip(keys, S3DeleteObjects.outcomes(keys: keys, resultBody: reply.response.body)) {
            if case .failed(let reason) = outcome {
                failures[key] = StorageError("s3 DeleteObjects \(client.describe(key)): \(reason)")
            }
        }
        return failures
    }

    /// `keys` without repeats (compared as UTF-8 bytes), in their first order.
    static func distinct(_ keys: [String]) -> [String] {
        var seen = Set<[UInt8]>()
        return keys.filter { seen.insert(Array($0.utf8)).inserted }
    }
}
