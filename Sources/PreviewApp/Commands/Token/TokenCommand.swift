import Foundation
import PreviewCore
import PreviewCrypto
import PreviewServer

/// `streampreview token`: prints a bearer token signed with the server's secret.
enum TokenCommand {
    static func run(_ options: TokenOptions) throws -> ExitCode {
        let keys = try options.tokens.loadKeys(dataDirectory: { try DataDirectory(path: options.dataDirectory) })
        let key: [UInt8]
        if let kid = options.kid {
            guard let named = keys.keys[kid] else {
                throw AppError("kid '\(kid)' is not in the token keys file", exitCode: .usage)
            }
            key = named
        } else {
            key = keys.defaultKey
        }
        let now = WallClock.now()
        let claims = TokenClaims(
            subject: options.subject, role: options.role, streamIds: options.streamIds, issuedAt: now,
            expiresAt: now + options.ttl)
        print(JWTSigner(crypto: OpenSSLCrypto()).sign(claims, key: key, kid: options.kid))
        return .ok
    }
}
