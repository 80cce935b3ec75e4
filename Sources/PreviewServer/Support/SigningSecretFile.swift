import PreviewCore

/// A file of HMAC secrets for signing outgoing calls (`StreamPreview-Signature`): one secret a
/// line, the current one first. During a rotation the file holds the new secret and the old one,
/// every call is signed with both, and a receiver may switch at its own pace.
package enum SigningSecretFile {
    static let minimumBytes = 32
    static let maximumSecrets = 4

    /// The secrets of `path`, read now (through `SecretFile`: a regular file of at most 64 KiB).
    /// Missing, empty, more than `maximumSecrets` lines, or a secret under 32 bytes throws an
    /// `AppError` with exit code `config`: a weak signing secret must stop the start.
    package static func read(_ path: String, what: String) throws -> [[UInt8]] {
        let text = try SecretFile.read(path, what: what)
        let secrets = text.split(separator: UInt8(ascii: "\n")).map(trimmed).filter { !$0.isEmpty }
        guard secrets.count <= maximumSecrets else {
            throw AppError(
                "the \(what) \(path) has \(secrets.count) secrets; at most \(maximumSecrets) (one a line)",
                exitCode: .config)
        }
        for (index, secret) in secrets.enumerated() where secret.count < minimumBytes {
            throw AppError(
                "the \(what) \(path): secret \(index + 1) is \(secret.count) bytes; at least \(minimumBytes) are "
                    + "needed (generate one with 'openssl rand -hex 32')",
                exitCode: .config)
        }
        return secrets
    }

    private static func trimmed(_ line: ArraySlice<UInt8>) -> [UInt8] {
        Array(ASCII.trimming(line) { [0x20, 0x09, 0x0D].contains($0) })
    }
}
