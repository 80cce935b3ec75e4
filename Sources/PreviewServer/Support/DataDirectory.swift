import Foundation
import PreviewCore
import PreviewCrypto

/// The data folder of the embedded mode: Redis files, objects, and generated secrets. It is
/// private to the service's user: created 0700, and an existing one that group or others may
/// enter is changed to 0700 (logged), or refused when that is not possible.
package struct DataDirectory: Sendable {
    package let path: String

    package init(path: String) throws {
        let absolute = Self.absolute(path)
        let parent = (absolute as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw AppError("cannot create \(parent): \(error.localizedDescription)", exitCode: .config)
        }
        if mkdir(absolute, 0o700) != 0, errno != EEXIST {
            throw AppError("cannot create \(absolute): \(String(cString: strerror(errno)))", exitCode: .config)
        }
        var status = stat()
        guard stat(absolute, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw AppError("the data dir \(absolute) is not a directory", exitCode: .config)
        }
        try Self.makePrivate(absolute, mode: status.st_mode, wanted: 0o700, what: "data dir")
        self.path = absolute
    }

    package var redisDirectory: String { path + "/redis" }
    package var objectsDirectory: String { path + "/objects" }

    /// A secret kept in the folder (`token-secret`, `storage-secret`): read it, or create it
    /// when missing (32 random bytes as 64 hex digits, mode 0600 from the first byte). An
    /// existing file that is empty, shorter than `JWTKeySet.minimumSecretBytes` or unreadable
    /// is an error (exit code `config`), never replaced: a weak secret must not pass silently,
    /// and a new one would invalidate every token and URL issued.
    package func secret(named name: String) throws -> [UInt8] {
        let file = path + "/" + name
        let what = "\(name) file"
        if let existing = try Self.existingSecret(file, what: what) {
            var status = stat()
            if stat(file, &status) == 0 { try Self.makePrivate(file, mode: status.st_mode, wanted: 0o600, what: what) }
            return existing
        }
        let secret = Array(try Hex.encode(SecureRandom.bytes(32)).utf8)
        guard try SecretFile.createExclusive(file, contents: secret + [0x0A]) else {
            // Another process created it between our read and our link: theirs wins.
            let theirs = try SecretFile.read(file, what: what)
            try Self.checkStrength(theirs, file: file, what: what)
            return theirs
        }
        Log.info("secret_created", ["file": file])
        return secret
    }

    /// The secret `name` of the data folder at `path`, read and checked as `secret(named:)`
    /// reads it (same limits, strength check, messages and exit codes), for commands that sign
    /// with the server's secret: nil when it does not exist, and neither the folder nor the
    /// secret is created (a fresh secret would sign what no server accepts).
    package static func existingSecret(named name: String, in path: String) throws -> [UInt8]? {
        try existingSecret(absolute(path) + "/" + name, what: "\(name) file")
    }

    private static func existingSecret(_ file: String, what: String) throws -> [UInt8]? {
        let found: [UInt8]?
        do { found = try SecretFile.readIfPresent(file, what: what) } catch let error as AppError {
            throw AppError(error.description + "; " + regenerateHint, exitCode: error.exitCode)
        }
        if let found { try checkStrength(found, file: file, what: what) }
        return found
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    private static let regenerateHint =
        "delete it to have a new one generated (tokens and URLs signed with the old one stop working)"

    private static func checkStrength(_ secret: [UInt8], file: String, what: String) throws {
        if let problem = JWTKeySet.problem(withSecret: secret) {
            throw AppError(
                "the \(what) \(file) \(problem); \(regenerateHint)", exitCode: .config)
        }
    }

    /// Changes `path` to `wanted` when group or others have any access; refuses if it cannot.
    private static func makePrivate(_ path: String, mode: mode_t, wanted: mode_t, what: String) throws {
        guard mode & 0o077 != 0 else { return }
        let old = String(mode & 0o7777, radix: 8)
        guard chmod(path, wanted) == 0 else {
            throw AppError(
                "the \(what) \(path) is accessible by group or others (mode \(old)) and cannot be changed to "
                    + "\(String(wanted, radix: 8)): \(String(cString: strerror(errno)))", exitCode: .config)
        }
        Log.warn("permissions_fixed", ["path": path, "old_mode": old, "new_mode": String(wanted, radix: 8)])
    }
}
