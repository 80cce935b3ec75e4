// The request body as curl's read callback sees it: bytes in memory or a file streamed from disk.
#if canImport(Glibc)
    import Glibc
#endif

/// A body with a known size that can be read in pieces and rewound (for curl's retries).
final class UploadSource {
    private enum Storage {
        case bytes([UInt8])
        case file(descriptor: Int32, path: String)
    }

    private let storage: Storage
    let size: Int64
    private var offset = 0

    private init(storage: Storage, size: Int64) {
        self.storage = storage
        self.size = size
    }

    deinit {
        if case .file(let descriptor, _) = storage {
            _ = close(descriptor)  // read-only descriptor: nothing to flush, nothing to report
        }
    }

    /// Nil when the method sends no body. POST and PUT always send one (possibly empty), so
    /// curl never falls back to its default reader, which reads stdin.
    static func make(method: String, body: HTTPClientRequest.Body) throws -> UploadSource? {
        switch body {
        case .none:
            return method == "POST" || method == "PUT" ? UploadSource(storage: .bytes([]), size: 0) : nil
        case .bytes(let bytes):
            return method == "HEAD" ? nil : UploadSource(storage: .bytes(bytes), size: Int64(bytes.count))
        case .file(let path):
            if method == "HEAD" { return nil }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw HTTPClientError(kind: .file, message: "open \(path): \(errnoText())")
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                _ = close(descriptor)  // failing anyway; the fstat/type problem is what we report
                throw HTTPClientError(kind: .file, message: "\(path) is not a regular file")
            }
            return UploadSource(storage: .file(descriptor: descriptor, path: path), size: Int64(info.st_size))
        }
    }

    /// Copies the next bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Int {
        switch storage {
        case .bytes(let bytes):
            let count = min(buffer.count, bytes.count - offset)
            guard count > 0 else { return 0 }
            bytes[offset..<offset + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
            offset += count
            return count
        case .file(let descriptor, let path):
            guard let base = buffer.baseAddress else { return 0 }
            while true {
                let count = Glibc.read(descriptor, base, buffer.count)
                if count >= 0 { return count }
                if errno == EINTR { continue }
                throw HTTPClientError(kind: .file, message: "read \(path): \(errnoText())")
            }
        }
    }

    func seek(to position: Int64) -> Bool {
        guard position >= 0, position <= size else { return false }
        switch storage {
        case .bytes:
            offset = Int(position)
            return true
        case .file(let descriptor, _):
            return lseek(descriptor, off_t(position), SEEK_SET) == off_t(position)
        }
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }
