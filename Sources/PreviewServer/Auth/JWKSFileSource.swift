import Foundation
import PreviewCore
import Synchronization

/// `--jwks-file`: the provider's keys read at start (a bad file stops start-up), then again on
/// SIGHUP and when the file changes (checked every second: size, modification time and inode,
/// so a replaced file or a swapped symlink, as a mounted ConfigMap does, counts). A reload that
/// fails keeps the keys in use, is logged and counted.
package final class JWKSFileSource: Sendable {
    package let path: String
    private let ring: TokenKeyRing
    private let thread = PeriodicThread(name: "jwks-file", interval: 1)
    private struct State {
        var stamp: FileStamp?
        var reloadRequested = false
    }
    private let state = Mutex(State())

    package init(path: String, ring: TokenKeyRing) {
        self.path = path
        self.ring = ring
    }

    /// Reads the file now; throws an `AppError` (exit code `config`) when it is not a usable key set.
    package func loadAtStart() throws {
        do {
            try reload()
        } catch {
            throw AppError("--jwks-file \(path): \(error)", exitCode: .config)
        }
    }

    package func start() {
        thread.start { [self] in
            let (requested, changed) = state.withLock { state in
                defer { state.reloadRequested = false }
                return (state.reloadRequested, FileStamp(path) != state.stamp)
            }
            guard requested || changed else { return true }
            do {
                try reload()
            } catch {
                ring.failures.add()
                Log.warn("jwks_reload_failed", ["file": path, "reason": "\(error)", "kept": String(ring.keyCount)])
            }
            return true
        }
    }

    /// Reloads on the next pass (SIGHUP).
    package func requestReload() {
        state.withLock { $0.reloadRequested = true }
    }

    package func stop() { thread.stop() }

    private func reload() throws {
        let stamp = FileStamp(path)
        // The stamp is taken before the read: a write during the read shows as a change next pass.
        state.withLock { $0.stamp = stamp }
        let set = try JWKSet.parse(try Self.read(path))
        ring.install(set)
    }

    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's bytes, at most `JWKSet.maxDocumentBytes` (one more is read to tell a larger file).
    static func read(_ path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ReadError(description: "cannot open it") }
        defer { try? handle.close() }  // ignored: a read-only handle has nothing to flush
        guard let data = try handle.read(upToCount: JWKSet.maxDocumentBytes + 1) else { return [] }
        return Array(data)
    }
}

/// What tells a changed file: size, modification time (nanoseconds) and inode of what the path
/// names now; nil when it cannot be stat'ed.
struct FileStamp: Equatable {
    var size: Int64
    var seconds: Int
    var nanoseconds: Int
    var inode: UInt64

    init?(_ path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        size = Int64(status.st_size)
        seconds = status.st_mtim.tv_sec
        nanoseconds = status.st_mtim.tv_nsec
        inode = UInt64(status.st_ino)
    }
}
