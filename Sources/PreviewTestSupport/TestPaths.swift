// Where tests find the repository and put their scratch files. Linux (glibc) only.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The repository checkout and fresh scratch folders, for every test target.
public enum TestPaths {
    /// The repository root (this file is Sources/PreviewTestSupport/TestPaths.swift).
    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    /// A fresh, private (mode 0700) folder under /tmp, named `<prefix>-` and six random characters
    /// (mkdtemp). Short on purpose: a unix socket path inside it must fit in 107 bytes.
    public static func makeTemporaryDirectory(prefix: String) throws -> String {
        let placeholder = String(repeating: "X", count: 6)  // the characters mkdtemp(3) replaces
        var template = Array(("/tmp/\(prefix)-" + placeholder).utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkdtemp($0) != nil } ?? false
        }
        guard made else {
            throw ServiceProcessError("mkdtemp under /tmp failed: \(String(cString: strerror(errno)))")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
