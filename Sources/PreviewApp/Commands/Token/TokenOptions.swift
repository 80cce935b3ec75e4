import PreviewCore
import PreviewServer

/// `streampreview token`: mint a bearer token with the server's secret.
struct TokenOptions: Sendable, Equatable {
    var subject = ""
    var role = Role.viewer
    var streamIds: [Int64] = []
    /// Seconds the token is valid: at most `tokens.maxLifetime`, which is also the default.
    var ttl: Int64 = JWTVerifier.defaultMaxLifetime
    var dataDirectory = "./.streampreview"
    /// The same secrets (and maximum lifetime) as `serve` is given.
    var tokens = TokenSecretOptions()
    /// `--kid`: sign with this key of `--token-keys-file` and name it in the header.
    var kid: String?

    init() {}

    static let specs: [OptionSpec] =
        [
            OptionSpec(flag: "sub", environment: nil, help: "subject: the user ID (required)"),
            OptionSpec(flag: "role", environment: nil, help: "streamer, viewer or admin (default viewer)"),
            OptionSpec(
                flag: "stream", environment: nil, help: "a stream ID the streamer owns (repeatable)", repeats: true),
            OptionSpec(
                flag: "ttl", environment: nil,
                help: "seconds the token is valid, at most --max-token-lifetime (default: that maximum, 86400)"),
            OptionSpec(flag: "kid", environment: nil, help: "sign with this key of --token-keys-file (key rotation)"),
            OptionSpec(
                flag: "data-dir", environment: "STREAMPREVIEW_DATA_DIR",
                help: "where serve keeps its secret (default ./.streampreview)"),
        ] + TokenSecretOptions.specs

    static var help: String {
        """
        Usage: streampreview token --sub ID [--role streamer|viewer|admin] [--stream ID]... [--ttl SECONDS] [--kid KID]

        Prints a JWT (HS256) signed with the same secret as 'serve' uses, for the
        Authorization: Bearer header. Streamers need --stream for each stream they own.
        Give it the secret options 'serve' is given (or the same data dir).

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))
        """
    }

    static func parse(_ options: ParsedOptions) throws(UsageError) -> TokenOptions {
        var token = TokenOptions()
        guard let subject = options.string("sub"), !subject.isEmpty else { throw UsageError("--sub is required") }
        guard subject.utf8.count <= JWTVerifier.maxSubjectBytes else {
            throw UsageError(
                "--sub is longer than \(JWTVerifier.maxSubjectBytes) bytes; the server would refuse the token")
        }
        guard TokenSubject.isAcceptableForHS256(subject) else {
            throw UsageError(
                "--sub must not hold control or bidirectional characters, nor start with "
                    + "\(TokenSubject.providerPrefix) (kept for identity-provider subjects); "
                    + "the server would refuse the token")
        }
        token.subject = subject
        if let roleName = options.string("role") {
            guard let role = Role(rawValue: roleName) else {
                throw UsageError("--role must be streamer, viewer or admin, not '\(roleName)'")
            }
            token.role = role
        }
        for text in options.all("stream") {
            guard let id = StreamID.parse(text) else {
                throw UsageError("--stream must be a positive integer, not '\(text)'")
            }
            token.streamIds.append(id)
        }
        guard token.streamIds.count <= JWTVerifier.maxStreamIDs else {
            throw UsageError("more than \(JWTVerifier.maxStreamIDs) --stream; the server would refuse the token")
        }
        if token.role == .streamer, token.streamIds.isEmpty {
            throw UsageError("a streamer token needs at least one --stream")
        }
        token.tokens = try TokenSecretOptions.parse(options)
        let maximum = token.tokens.maxLifetime
        token.ttl = try options.int64("ttl", default: maximum, range: 1...(366 * 86400))
        guard token.ttl <= maximum else {
            throw UsageError(
                "--ttl \(token.ttl) is longer than the maximum token lifetime, \(maximum) s "
                    + "(--max-token-lifetime, STREAMPREVIEW_MAX_TOKEN_LIFETIME); the server would refuse the token")
        }
        if let kid = options.string("kid") {
            guard token.tokens.keysFile != nil else {
                throw UsageError("--kid needs --token-keys-file (STREAMPREVIEW_TOKEN_KEYS_FILE)")
            }
            token.kid = kid
        }
        if let dir = options.string("data-dir") { token.dataDirectory = dir }
        return token
    }
}
