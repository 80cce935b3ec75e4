import Foundation
import PreviewCore
import Synchronization

/// One PUT into the local store, streamed to disk as it arrives: never held whole in memory.
///
/// The body goes to a fresh file under `<root>/tmp` (created with `O_CREAT | O_EXCL`, mode
/// 0600). `publish()` accepts exactly the declared length, syncs it, and makes it the object with
/// `link()`, which fails when the key is taken: objects are written once, and a PUT that loses a
/// race leaves the first object untouched. An upload that is never published (client gone, body
/// cut short, too many bytes) leaves nothing behind: `abandon()` and deinit remove the file.
final class LocalObjectUpload: HTTPBodySink {
    /// What `publish()` did.
    enum Outcome: Equatable {
        case stored
        /// Another PUT stored the key first; nothing was changed.
        case alreadyStored
        /// The body ended before the declared length (nothing stored).
        case incomplete(received: Int64)
    }

    /// The declared body length (`Content-Length`), also the signed one.
    let length: Int64
    let contentType: String
    private let temporaryPath: String
    private let dataPath: String
    private let metaPath: String
    private let folder: String
    private let state: Mutex<State>
    /// Runs once when the temporary file goes (published or dropped): the store's in-progress
    /// mark of the key is released however the upload ends.
    private let onFinish: @Sendable () -> Void

    private struct State {
        /// The temporary file, open for writing until published or dropped; -1 afterwards.
        var fd: Int32
        var received: Int64 = 0
        /// The temporary file is gone (published, or dropped).
        var finished = false
    }

    init(
        temporaryFolder: String, dataPath: String, metaPath: String, length: Int64, contentType: String,
        onFinish: @escaping @Sendable () -> Void = {}
    ) throws {
        let path = "\(temporaryFolder)/\(UUID().uuidString).part"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError("cannot create \(path): \(String(cString: strerror(errno)))") }
        temporaryPath = path
        self.dataPath = dataPath
        self.metaPath = metaPath
        folder = (dataPath as NSString).deletingLastPathComponent
        self.length = length
        self.contentType = contentType
        self.onFinish = onFinish
        state = Mutex(State(fd: fd))
    }

    deinit { abandon() }

    /// Appends a chunk; refuses (dropping the file) past the declared length or on a write error.
    func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            guard Int64(chunk.count) <= length - state.received, Self.writeAll(chunk, to: state.fd) else {
                drop(&state)
                return false
            }
            state.received += Int64(chunk.count)
            return true
        }
    }

    /// Removes the temporary file; nothing is stored. Harmless after `publish()`.
    func abandon() {
        state.withLock { drop(&$0) }
    }

    /// Makes the received bytes the object, with its content type, if it has exactly the
    /// declared length and the key is still free. Throws `StorageError` when the disk fails.
    func publish() throws -> Outcome {
        try state.withLock { state throws -> Outcome in
            guard !state.finished else { throw StorageError("the upload to \(dataPath) was already finished") }
            defer { drop(&state) }
            guard state.received == length else { return .incomplete(received: state.received) }
            // Checked again before the sync: a key taken meanwhile costs no fsync (`link` below
            // still decides a race).
            guard access(dataPath, F_OK) != 0 else { return .alreadyStored }
            guard fsync(state.fd) == 0 else { throw Self.failure("cannot sync", temporaryPath) }
            let meta = try prepareMeta()
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try FileManager.default.createDirectory(
                    atPath: (metaPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            } catch {
                unlinkIgnoringErrors(meta)
                throw StorageError("cannot create the folders of \(dataPath): \(error)")
            }
            // The content type goes in first, so an object never appears without it (a reader
            // would see application/octet-stream, and a crash in between would keep it so). A
            // key's URLs all sign the same type, so replacing a leftover type file is harmless;
            // an object already stored keeps its own.
            guard access(dataPath, F_OK) != 0 else {
                unlinkIgnoringErrors(meta)
                return .alreadyStored
            }
            guard rename(meta, metaPath) == 0 else {
                let code = errno
                unlinkIgnoringErrors(meta)
                throw Self.failure("cannot store the content type of", metaPath, code)
            }
            // link(2) never replaces an existing name: this is what makes objects write-once.
            guard link(temporaryPath, dataPath) == 0 else {
                let code = errno
                if code == EEXIST { return .alreadyStored }
                throw Self.failure("cannot publish", dataPath, code)
            }
            syncFolder(folder)
            return .stored
        }
    }

    /// The content type in a temporary file of its own, synced, ready to be renamed into place.
    private func prepareMeta() throws -> String {
        let path = temporaryPath + ".type"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Self.failure("cannot create", path) }
        let written = Array(contentType.utf8).withUnsafeBytes { Self.writeAll($0, to: fd) && fsync(fd) == 0 }
        let closed = close(fd) == 0
        guard written, closed else {
            let code = errno
            unlinkIgnoringErrors(path)
            throw Self.failure("cannot write", path, code)
        }
        return path
    }

    /// Closes and removes the temporary file once; after `link()` the object keeps the bytes.
    private func drop(_ state: inout State) {
        guard !state.finished else { return }
        state.finished = true
        // The descriptor was only written through; the bytes are either published (and synced)
        // or thrown away, so a close error changes nothing.
        _ = close(state.fd)
        state.fd = -1
        unlinkIgnoringErrors(temporaryPath)
        onFinish()
    }

    private func unlinkIgnoringErrors(_ path: String) {
        // A leftover temporary name is harmless (it is never read) and there is no one to tell.
        _ = unlink(path)
    }

    /// fsync of the object's folder, so the new name survives a crash. Best effort: the object
    /// is already published and readable, and a failure here cannot be undone.
    private func syncFolder(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)  // best effort, as above
        _ = close(fd)  // read-only descriptor: nothing to lose
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var written = 0
        while written < bytes.count {
            let n = Foundation.write(fd, base + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += n
        }
        return true
    }

    private static func failure(_ what: String, _ path: String, _ code: Int32 = errno) -> StorageError {
        StorageError("\(what) \(path): \(String(cString: strerror(code)))")
    }
}
