import Foundation
import PreviewCore
import PreviewServer

/// `streampreview presign`: prints one presigned object URL.
enum PresignCommand {
    /// The local store's default base URL (`serve`'s default listen address).
    static let defaultLocalBaseURL = "http://127.0.0.1:8080"

    static func run(_ options: PresignOptions) throws -> ExitCode {
        try refuseInvalidUTF8Arguments()
        print(try presignedURL(options, now: WallClock.now()))
        return .ok
    }

    /// The URL `run` prints.
    static func presignedURL(_ options: PresignOptions, now: Int64) throws -> String {
        var local: SignerFactory.Local?
        if options.storage.backend == .local {
            local = SignerFactory.Local(
                baseURL: options.storage.endpoint ?? defaultLocalBaseURL, secret: try localSecret(options.dataDirectory)
            )
        }
        let signer = try SignerFactory.make(options.storage, local: local)
        let request = ObjectSignRequest(
            method: options.method, bucket: options.storage.bucket ?? "", key: options.key,
            expiresSeconds: options.expires, signingTime: options.signingTime ?? now,
            headers: options.headers.map { (name: $0.name, value: $0.value) },
            query: options.query.map { (name: $0.name, value: $0.value) })
        do {
            return try signer.presign(request)
        } catch let error as ObjectSignError {
            throw AppError(error.description, exitCode: .usage)
        } catch let error as SigV4PresignError {
            throw AppError("cannot sign: \(error)", exitCode: .usage)
        }
    }

    /// `serve`'s storage secret, read and checked as `serve` reads it, without creating one (a
    /// fresh secret would sign URLs no server accepts).
    private static func localSecret(_ dataDirectory: String) throws -> String {
        guard let secret = try DataDirectory.existingSecret(named: "storage-secret", in: dataDirectory) else {
            throw AppError(
                "no storage secret at \(dataDirectory)/storage-secret; run 'streampreview serve' with this "
                    + "--data-dir first")
        }
        return String(decoding: secret, as: UTF8.self)
    }

    /// Swift repairs invalid UTF-8 in arguments to U+FFFD, which would sign a different key;
    /// refuse instead (stores reject keys that are not UTF-8).
    private static func refuseInvalidUTF8Arguments() throws {
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index] else { continue }
            if String(validatingCString: argument) == nil {
                throw AppError("argument \(index) is not valid UTF-8; object keys must be UTF-8", exitCode: .usage)
            }
        }
    }
}
