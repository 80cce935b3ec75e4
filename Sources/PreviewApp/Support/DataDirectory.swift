import Foundation
import PreviewCore
import PreviewCrypto

/// The data folder of the embedded mode: Redis files, objects, and generated secrets.
struct DataDirectory: Sendable {
    let path: String

    init(path: String) throws {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true)
        self.path = absolute
    }

    var redisDirectory: String { path + "/redis" }
    var objectsDirectory: String { path + "/objects" }

    /// A secret kept in the folder: read it, or create it (32 random bytes, hex, mode 0600).
    func secret(named name: String) throws -> String {
        let file = path + "/" + name
        if let existing = try? String(contentsOfFile: file, encoding: .utf8) {
            let trimmed = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            if !trimmed.isEmpty { return trimmed }
        }
        let secret = try Hex.encode(SecureRandom.bytes(32))
        let temporary = file + ".tmp.\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        else { throw AppError("cannot write \(temporary)") }
        // link() fails if another process created the secret first; then theirs wins.
        if link(temporary, file) != 0 {
            _ = unlink(temporary)  // ignored result: a leftover temporary file is harmless
            return try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = unlink(temporary)  // ignored result: a leftover temporary file is harmless
        return secret
    }
}

/// A start-up or command failure with a message for the operator.
struct AppError: Error, CustomStringConvertible {
    var description: String
    var exitCode: ExitCode
    init(_ description: String, exitCode: ExitCode = .failure) {
        self.description = description
        self.exitCode = exitCode
    }
}
