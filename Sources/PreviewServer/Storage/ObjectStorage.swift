package import PreviewCore

/// Where clip and thumbnail bytes live. Two real implementations: the embedded local store
/// (`LocalObjectStore`: files under the data dir, served by this process) and S3/GCS buckets
/// (`RemoteObjectStorage`, over libcurl).
package protocol ObjectStorage: Sendable {
    /// A PUT URL for `key`, bound to the method, the content type and the size, and the exact
    /// headers the client must send with it.
    func uploadTarget(key: String, spec: UploadSpec.ObjectSpec, now: Int64, expiresIn: Int64) throws -> UploadTarget
    /// A GET URL for the feed: plain on the public base URL when one is configured, otherwise
    /// signed on the expiry grid so every viewer in a window gets the same URL. With a
    /// `disposition` (`AttachmentDisposition`) the signed URL makes the store answer with that
    /// `Content-Disposition`; a plain public URL cannot.
    func downloadURL(key: String, disposition: String?, now: Int64) throws -> String
    /// A GET URL signed at `now` for `expiresIn` seconds, never plain nor shared: what the
    /// commit hook fetches an object with before it is published.
    func privateDownloadURL(key: String, now: Int64, expiresIn: Int64) throws -> String
    /// Size, stored content type and up to `prefixLength` leading bytes; nil when absent.
    func inspect(key: String, prefixLength: Int) throws -> ObjectInfo?
    /// Up to `length` bytes from `offset` (a ranged GET: `Range: bytes=offset-(offset+length-1)`);
    /// fewer at the end of the object, none past it; nil when the object is absent.
    func read(key: String, offset: Int64, length: Int) throws -> [UInt8]?
    /// Deletes an object; deleting a missing object succeeds.
    func delete(key: String) throws
    /// Deletes `keys`, with at most `concurrency` requests in flight. A missing object counts as
    /// deleted. Returns the keys that are not known to be gone, each with why; an empty result
    /// means every key is gone. Never throws: one key's failure does not hide the others'.
    /// (Keys equal as Swift strings, NFC and NFD spellings, share one entry: a failure of either
    /// reads as a failure of both. A `concurrency` below 1 counts as 1.)
    func delete(keys: [String], concurrency: Int) -> [String: StorageError]
}

extension ObjectStorage {
    func downloadURL(key: String, now: Int64) throws -> String {
        try downloadURL(key: key, disposition: nil, now: now)
    }
}

package struct UploadTarget: Sendable, Equatable {
    var url: String
    var headers: [String: String]
}

package struct ObjectInfo: Sendable, Equatable {
    var size: Int64
    var contentType: String?
    var prefix: [UInt8]
}

/// A storage operation that failed (disk, network); the API answers 503 or 500.
package struct StorageError: Error, CustomStringConvertible {
    package var description: String
    /// True when no answer could be had at all: connection refused, DNS failure, no route (the
    /// store is down or misconfigured). False for an answer that was an error (HTTP 403, 5xx,
    /// a disk error) and for timeouts (something answered the connection).
    var unreachable: Bool

    init(_ description: String, unreachable: Bool = false) {
        self.description = description
        self.unreachable = unreachable
    }
}
