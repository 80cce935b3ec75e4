import PreviewCore
import PreviewServer

extension TokenSecretOptions {
    /// The keys these options name, read now: the default secret (from the value, its file, or
    /// the data dir's `token-secret`, created when missing) and the keys file's named keys. A
    /// file that is missing, unreadable, empty or holds a secret under 32 bytes throws an
    /// `AppError` with exit code `config`.
    func loadKeys(dataDirectory: () throws -> DataDirectory) throws -> JWTKeySet {
        let defaultKey: [UInt8]
        switch source {
        case .value(let secret):
            defaultKey = Array(secret.utf8)
        case .file(let path):
            defaultKey = try SecretFile.read(path, what: "token secret file")
            if let problem = JWTKeySet.problem(withSecret: defaultKey) {
                throw AppError("the token secret file \(path) \(problem)", exitCode: .config)
            }
        case .dataDirectory:
            defaultKey = try dataDirectory().secret(named: "token-secret")
        }
        var named: [String: [UInt8]] = [:]
        if let keysFile {
            let text = try SecretFile.read(keysFile, what: "token keys file")
            do {
                named = try JWTKeySet.parseKeyLines(String(decoding: text, as: UTF8.self))
            } catch {
                throw AppError("the token keys file \(keysFile): \(error)", exitCode: .config)
            }
        }
        return JWTKeySet(defaultKey: defaultKey, keys: named)
    }
}
