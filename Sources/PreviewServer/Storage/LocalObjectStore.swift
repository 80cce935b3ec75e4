import Foundation
package import PreviewCore
import Synchronization

/// The embedded object store: objects are files under `<data>/objects/data/<key>`, their
/// content types under `<data>/objects/meta/<key>`, uploads in progress under
/// `<data>/objects/tmp`, and this process serves them under
/// `/objects/<key>` with SigV4-shaped signed URLs (region `local`, service `s3`).
///
/// Objects are written once: a PUT streams into a temporary file (`LocalObjectUpload`) that is
/// published with `link()`, so an object appears whole or not at all and is never replaced.
package final class LocalObjectStore: ObjectStorage {
    static let maxBytesParameter = LocalStoreSigner.maxBytesParameter

    package let root: String
    let publicBaseURL: String?
    let grid: ExpiryGrid
    package let secret: String
    private let crypto: any CryptoPrimitives
    let verifier: SigV4Verifier
    /// The signer for the server's base URL, known only once the server has its port.
    private let signer: Mutex<LocalStoreSigner>
    private let signedURLs: SignedURLCache
    /// Where inspect, read and delete are timed and their failures counted, when metrics are on.
    let metrics: CallMetrics?
    /// Keys with a PUT streaming now: one upload per key at a time, so a URL shared by many
    /// clients costs one body's disk and sync, not one per client. A key leaves the set when
    /// its upload ends in any way (published, refused, cut short, client gone).
    private let uploading = Mutex(Set<String>())

    /// `removePartialUploads`: for the process that serves the store (`serve`), which owns its
    /// uploads in progress; never for another process on the same folder (`sweep`), whose
    /// removal would cut a running serve's PUTs short.
    package init(
        root: String, publicBaseURL: String?, secret: String, grid: ExpiryGrid, crypto: any CryptoPrimitives,
        removePartialUploads: Bool = true, metrics: CallMetrics? = nil
    ) throws {
        self.metrics = metrics
        self.root = root
        self.publicBaseURL = publicBaseURL
        self.grid = grid
        self.secret = secret
        self.crypto = crypto
        signer = Mutex(LocalStoreSigner(scheme: "http", host: "127.0.0.1", secret: secret, crypto: crypto))
        verifier = SigV4Verifier(region: LocalStoreSigner.region, service: LocalStoreSigner.service, crypto: crypto)
        signedURLs = SignedURLCache()
        for folder in ["data", "meta", "tmp"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        // Partial uploads of a process that stopped mid-PUT: never published, never read again.
        // The serving process owns the data dir (its Redis lives there too), so none of them is live.
        guard removePartialUploads else { return }
        for leftover in try FileManager.default.contentsOfDirectory(atPath: "\(root)/tmp") {
            try FileManager.default.removeItem(atPath: "\(root)/tmp/\(leftover)")
        }
    }

    // MARK: URLs

    /// Sets the base URL clients reach this server at (`http://127.0.0.1:8080`).
    package func setBaseURL(_ baseURL: String) throws {
        guard let components = URLComponents(string: baseURL), let scheme = components.scheme,
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw AppError("the public URL '\(baseURL)' is not a valid http(s) URL", exitCode: .usage) }
        let authority = (host.contains(":") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
        let updated = LocalStoreSigner(scheme: scheme, host: authority, secret: secret, crypto: crypto)
        signer.withLock { $0 = updated }
    }

    package func uploadTarget(key: String, spec: UploadSpec.ObjectSpec, now: Int64, expiresIn: Int64) throws
        -> UploadTarget
    {
        var headers: [(name: String, value: String)] = [("content-type", spec.type.rawValue)]
        if let declared = spec.declaredBytes { headers.append(("content-length", String(declared))) }
        let url = try sign(
            method: "PUT", key: key, headers: headers, query: [(Self.maxBytesParameter, String(spec.maxBytes))],
            signingTime: now, expiresIn: expiresIn)
        var required = ["Content-Type": spec.type.rawValue]
        if let declared = spec.declaredBytes { required["Content-Length"] = String(declared) }
        return UploadTarget(url: url, headers: required)
    }

    package func downloadURL(key: String, disposition: String?, now: Int64) throws -> String {
        if let publicBaseURL { return publicBaseURL + "/" + ObjectPath.encode(key) }
        let signingTime = grid.signingTime(at: now)
        let query = disposition.map { [(name: AttachmentDisposition.parameter, value: $0)] } ?? []
        return try signedURLs.url(key: key, disposition: disposition, signingTime: signingTime) {
            try sign(
                method: "GET", key: key, headers: [], query: query, signingTime: signingTime, expiresIn: grid.lifetime)
        }
    }

    package func privateDownloadURL(key: String, now: Int64, expiresIn: Int64) throws -> String {
        try sign(method: "GET", key: key, headers: [], query: [], signingTime: now, expiresIn: expiresIn)
    }

    /// Signs a URL for any method on `key` (also used by tests).
    func sign(
        method: String, key: String, headers: [(name: String, value: String)], query: [(name: String, value: String)],
        signingTime: Int64, expiresIn: Int64
    ) throws -> String {
        let request = ObjectSignRequest(
            method: method, bucket: "", key: key, expiresSeconds: Int(expiresIn), signingTime: signingTime,
            headers: headers, query: query)
        return try signer.withLock { $0 }.presign(request)
    }

    package func secret(forAccessKey id: String) -> String? { id == LocalStoreSigner.accessKeyId ? secret : nil }

    // MARK: Files

    /// The file of a key, or nil for a key that cannot name a file safely.
    func dataPath(_ key: String) -> String? { ObjectKeyPath.isSafe(key) ? "\(root)/data/\(key)" : nil }
    private func metaPath(_ key: String) -> String { "\(root)/meta/\(key)" }

    /// Whether an object is stored under `key`; throws when the file system cannot tell.
    func exists(key: String) throws -> Bool {
        guard let path = dataPath(key) else { return false }
        var info = stat()
        if stat(path, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFREG }
        if Self.namesNoObject(errno) { return false }
        throw StorageError("cannot stat \(path): \(String(cString: strerror(errno)))")
    }

    /// Errors of a path that mean "no object can be there" rather than a failing disk: no such
    /// file, a part of the path that is an object rather than a folder, a name over the file
    /// system's limits (a key of 1,024 bytes may hold a 300-byte part), or a folder.
    static func namesNoObject(_ code: Int32) -> Bool {
        code == ENOENT || code == ENOTDIR || code == ENAMETOOLONG || code == EISDIR
    }

    /// Whether `key` names a folder of other objects rather than an object.
    func namesFolder(_ key: String) -> Bool {
        guard let path = dataPath(key) else { return false }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Why `key` can never be stored in this folder tree, or nil when it can: a folder of other
    /// objects, an object in its path, or a name too long for the file system. Client errors,
    /// not disk failures.
    private func unusableReason(_ path: String) -> String? {
        var info = stat()
        if stat(path, &info) == 0 {
            return (info.st_mode & S_IFMT) == S_IFDIR ? "this key names a folder of other objects" : nil
        }
        switch errno {
        case ENOTDIR: return "a part of this key is an object, so nothing can be stored under it"
        case ENAMETOOLONG: return "this key is too long for the store's file system (each part at most 255 bytes)"
        default: return nil
        }
    }

    /// Why `beginUpload` refused a key.
    enum UploadConflict: Error, Equatable {
        /// The object is stored already (objects are written once).
        case stored
        /// Another upload of the key is streaming now.
        case inProgress
        /// The key can never name an object here; why, for the client.
        case unusable(String)
    }

    /// Starts writing `key`: the body of `length` bytes streams into the returned upload, which
    /// publishes it with the content type given (the one the URL signed). Throws
    /// `UploadConflict` when the key is taken or another upload of it is under way; the key is
    /// claimed first and checked second, so an upload that publishes between the two is seen.
    func beginUpload(key: String, length: Int64, contentType: String) throws -> LocalObjectUpload {
        guard let path = dataPath(key) else { throw StorageError("unsafe object key") }
        guard uploading.withLock({ $0.insert(key).inserted }) else { throw UploadConflict.inProgress }
        do {
            if let reason = unusableReason(path) { throw UploadConflict.unusable(reason) }
            guard try !exists(key: key) else { throw UploadConflict.stored }
            return try LocalObjectUpload(
                temporaryFolder: "\(root)/tmp", dataPath: path, metaPath: metaPath(key), length: length,
                contentType: contentType, onFinish: { [self] in release(key) })
        } catch {
            release(key)
            throw error
        }
    }

    /// Whether an upload of `key` is streaming now.
    func isUploading(_ key: String) -> Bool { uploading.withLock { $0.contains(key) } }

    private func release(_ key: String) {
        _ = uploading.withLock { $0.remove(key) }
    }

    /// Stores a whole object at once through the same write-once path as a PUT; throws if the
    /// key is taken.
    func write(key: String, bytes: [UInt8], contentType: String) throws {
        let upload = try beginUpload(key: key, length: Int64(bytes.count), contentType: contentType)
        guard bytes.withUnsafeBytes({ upload.write($0) }) else { throw StorageError("cannot write \(key)") }
        switch try upload.publish() {
        case .stored: return
        case .alreadyStored: throw UploadConflict.stored
        case .incomplete(let received): throw StorageError("\(key): \(received) of \(bytes.count) bytes written")
        }
    }

    func inspectFile(key: String, prefixLength: Int) throws -> ObjectInfo? {
        guard let handle = try openForReading(key) else { return nil }
        defer { try? handle.close() }  // read-only descriptor: nothing to lose on close
        let size = Int64(try handle.seekToEnd())
        try handle.seek(toOffset: 0)
        let prefix = [UInt8](try handle.read(upToCount: prefixLength) ?? Data())
        return ObjectInfo(size: size, contentType: try storedContentType(key), prefix: prefix)
    }

    func readFile(key: String, offset: Int64, length: Int) throws -> [UInt8]? {
        guard offset >= 0, length >= 0 else { throw StorageError("a read needs a non-negative offset and length") }
        guard let handle = try openForReading(key) else { return nil }
        defer { try? handle.close() }  // read-only descriptor: nothing to lose on close
        let size = try handle.seekToEnd()
        guard UInt64(offset) < size, length > 0 else { return [] }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: length) ?? Data())
    }

    /// The content type stored with the object: the one its upload URL signed; nil when none
    /// was stored. Throws when the type file exists but cannot be read: commit must not pass its
    /// type check on a type it could not see.
    func storedContentType(_ key: String) throws -> String? {
        let path = metaPath(key)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        defer { try? handle.close() }  // read-only descriptor: nothing to lose on close
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: 1024) ?? Data()
        } catch {
            throw StorageError("cannot read \(path): \(error)")
        }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw StorageError("the content type in \(path) is not UTF-8")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func deleteFile(key: String) throws {
        if let failure = remove(key) { throw failure }
    }

    /// Unlinks on up to `concurrency` threads; see `remove(_:)`. Keys of one stream go to one
    /// thread, in turn: threads removing entries of the same folder would queue on its lock.
    func deleteFiles(keys: [String], concurrency: Int) -> [String: StorageError] {
        var byStream: [Substring: [String]] = [:]
        for key in keys { byStream[Self.streamFolder(of: key), default: []].append(key) }
        let groups = Array(byStream.values)
        let results = BoundedWork.map(count: groups.count, concurrency: concurrency) { index in
            groups[index].compactMap { key in self.measuredDelete { self.remove(key) }.map { (key, $0) } }
        }
        var failures: [String: StorageError] = [:]
        for (key, failure) in results.joined() { failures[key] = failure }
        return failures
    }

    /// `previews/<stream>` of a key (the whole key when it has fewer parts).
    private static func streamFolder(of key: String) -> Substring {
        var slashes = 0
        for index in key.indices where key[index] == "/" {
            slashes += 1
            if slashes == 2 { return key[..<index] }
        }
        return Substring(key)
    }

    /// Unlinks the object's data and content-type files (a missing file is already gone; a key
    /// that cannot name a file names no object), then the folders of its upload and stream that
    /// are left empty. Nil when the object is gone.
    private func remove(_ key: String) -> StorageError? {
        guard let path = dataPath(key) else { return nil }
        // A folder where the object's file would be (EISDIR) stays a failure: the sweeper must
        // not count as deleted what it could not remove. Other names no object can have are gone.
        for file in [path, metaPath(key)] where unlink(file) != 0 && (errno == EISDIR || !Self.namesNoObject(errno)) {
            return StorageError("cannot delete \(file): \(String(cString: strerror(errno)))")
        }
        // Drop the folders left empty, the upload's first: one that is not empty (or that a
        // concurrent delete of its other object removed first) ends the climb of its tree, since
        // its parents cannot be empty either (or the other delete climbs them).
        for tree in ["data", "meta"] {
            var folder = (key as NSString).deletingLastPathComponent
            while !folder.isEmpty, rmdir("\(root)/\(tree)/\(folder)") == 0 {
                folder = (folder as NSString).deletingLastPathComponent
            }
        }
        return nil
    }

    /// The object's file open for reading; nil when there is no such object (or the key is
    /// unsafe), an error when the file system fails otherwise.
    private func openForReading(_ key: String) throws -> FileHandle? {
        guard let path = dataPath(key) else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if Self.namesNoObject(errno) { return nil }
            throw StorageError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }  // a folder
        return handle
    }
}
