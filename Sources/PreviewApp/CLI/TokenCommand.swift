import Foundation
import PreviewCore
import PreviewCrypto

/// `streampreview token`: prints a bearer token signed with the server's secret.
enum TokenCommand {
    static func run(_ options: TokenOptions) throws -> ExitCode {
        let secret = try options.tokenSecret ?? DataDirectory(path: options.dataDirectory).secret(named: "token-secret")
        let now = WallClock.now()
        let claims = TokenClaims(
            subject: options.subject, role: options.role, streamIds: options.streamIds, issuedAt: now,
            expiresAt: now + options.ttl)
        print(JWTSigner(crypto: OpenSSLCrypto()).sign(claims, key: Array(secret.utf8)))
        return .ok
    }
}
