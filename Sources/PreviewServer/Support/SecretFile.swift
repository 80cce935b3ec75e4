import Foundation
import PreviewCore
import PreviewCrypto

/// Reading and creating files that hold secrets (token and storage secrets, keys files,
/// bearer tokens). Every failure is an `AppError` with exit code `config`.
package enum SecretFile {
    /// Files larger than this are not secrets: refused unread.
    static let maxBytes = 64 * 1024

    /// The file's bytes without leading and trailing spaces, tabs and line ends; nil only when
    /// the file does not exist. Unreadable, not a regular file, too large, or empty after
    /// trimming throws. `what` names the file in messages ("token secret file").
    static func readIfPresent(_ path: String, what: String) throws -> [UInt8]? {
        // O_NONBLOCK: a FIFO given as a secret file must not hang start-up (fstat then refuses it).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            throw AppError("cannot read the \(what) \(path): \(String(cString: strerror(error)))", exitCode: .config)
        }
        defer { _ = close(descriptor) }  // ignored result: a read-only descriptor has nothing to flush
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw AppError("the \(what) \(path) is not a regular file", exitCode: .config)
        }
        guard status.st_size <= maxBytes else {
            throw AppError("the \(what) \(path) is over \(maxBytes) bytes; it is not a secret", exitCode: .config)
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw AppError(
                    "cannot read the \(what) \(path): \(String(cString: strerror(errno)))", exitCode: .config)
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= maxBytes else {
            throw AppError("the \(what) \(path) is over \(maxBytes) bytes; it is not a secret", exitCode: .config)
        }
        let content = trimmed(bytes[..<filled])
        guard !content.isEmpty else { throw AppError("the \(what) \(path) is empty", exitCode: .config) }
        return content
    }

    /// As `readIfPresent`, and a missing file throws too.
    package static func read(_ path: String, what: String) throws -> [UInt8] {
        guard let bytes = try readIfPresent(path, what: what) else {
            throw AppError("the \(what) \(path) does not exist", exitCode: .config)
        }
        return bytes
    }

    /// Creates `path` holding `contents`, mode 0600 from its first byte: written to a fresh
    /// temporary file opened `O_CREAT | O_EXCL` with mode 0600, flushed with `fsync`, then
    /// hard-linked into place, so no reader ever sees it partial or readable by others.
    /// Returns false, creating nothing, when `path` already exists (another process won).
    static func createExclusive(_ path: String, contents: [UInt8]) throws -> Bool {
        let suffix = try Hex.encode(SecureRandom.bytes(8))
        let temporary = path + ".tmp-" + suffix
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        var written = 0
        while written < contents.count {
            let count = contents.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("cannot write", temporary)
                _ = close(descriptor)  // ignored result: the write error is the one reported
                _ = unlink(temporary)  // ignored result: best effort; the name is random
                throw error
            }
            written += count
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            let error = failure("cannot flush", temporary)
            _ = unlink(temporary)  // ignored result: best effort; the name is random
            throw error
        }
        if link(temporary, path) != 0 {
            let error = errno
            _ = unlink(temporary)  // ignored result: best effort; the name is random
            if error == EEXIST { return false }
            throw AppError("cannot create \(path): \(String(cString: strerror(error)))", exitCode: .config)
        }
        _ = unlink(temporary)  // ignored result: the secret is in place; a leftover name is harmless
        return true
    }

    private static func failure(_ action: String, _ path: String) -> AppError {
        AppError("\(action) \(path): \(String(cString: strerror(errno)))", exitCode: .config)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array(ASCII.trimming(bytes) { [0x20, 0x09, 0x0A, 0x0D].contains($0) })
    }
}
