public import PreviewCore

/// `streampreview token`: mint a bearer token with the server's secret.
public struct TokenOptions: Sendable, Equatable {
    public var subject = ""
    public var role = Role.viewer
    public var streamIds: [Int64] = []
    public var ttl: Int64 = 86400
    public var dataDirectory = "./.streampreview"
    public var tokenSecret: String?

    static let specs: [OptionSpec] = [
        OptionSpec(flag: "sub", environment: nil, help: "subject: the user ID (required)"),
        OptionSpec(flag: "role", environment: nil, help: "streamer, viewer or admin (default viewer)"),
        OptionSpec(flag: "stream", environment: nil, help: "a stream ID the streamer owns (repeatable)", repeats: true),
        OptionSpec(flag: "ttl", environment: nil, help: "seconds the token is valid (default 86400)"),
        OptionSpec(
            flag: "data-dir", environment: "STREAMPREVIEW_DATA_DIR",
            help: "where serve keeps its secret (default ./.streampreview)"),
        OptionSpec(
            flag: "token-secret", environment: "STREAMPREVIEW_TOKEN_SECRET",
            help: "HS256 secret (default: the one in the data dir)"),
    ]

    static var help: String {
        """
        Usage: streampreview token --sub ID [--role streamer|viewer|admin] [--stream ID]... [--ttl SECONDS]

        Prints a JWT (HS256) signed with the same secret as 'serve' uses, for the
        Authorization: Bearer header. Streamers need --stream for each stream they own.

        Options:
        \(OptionParser.helpText(specs))
        """
    }

    static func parse(_ options: ParsedOptions) throws(UsageError) -> TokenOptions {
        var token = TokenOptions()
        guard let subject = options.string("sub"), !subject.isEmpty else { throw UsageError("--sub is required") }
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
        if token.role == .streamer, token.streamIds.isEmpty {
            throw UsageError("a streamer token needs at least one --stream")
        }
        token.ttl = try options.int64("ttl", default: 86400, range: 1...(366 * 86400))
        if let dir = options.string("data-dir") { token.dataDirectory = dir }
        token.tokenSecret = options.string("token-secret")
        return token
    }
}
