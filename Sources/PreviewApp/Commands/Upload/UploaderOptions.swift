import PreviewCore
import PreviewServer

/// How an uploading command reaches the API: the server, a streamer's bearer token, the stream
/// and the wire format, shared by `upload` and `capture`.
struct UploaderOptions: Sendable, Equatable {
    var server = ""
    /// The bearer token from `--token` / `STREAMPREVIEW_TOKEN`; empty when `tokenFile` is given.
    var token = ""
    /// `--token-file` / `STREAMPREVIEW_TOKEN_FILE`: read when the command runs.
    var tokenFile: String?
    var streamId: Int64 = 0
    var format = WireFormat.json

    static let specs: [OptionSpec] = [
        OptionSpec(
            flag: "server", environment: "STREAMPREVIEW_SERVER",
            help: "base URL of the server, e.g. http://127.0.0.1:8080"),
        OptionSpec(
            flag: "token", environment: "STREAMPREVIEW_TOKEN",
            help:
                "bearer token of a streamer owning the stream; a flag shows in ps, so prefer the variable or --token-file"
        ),
        OptionSpec(
            flag: "token-file", environment: "STREAMPREVIEW_TOKEN_FILE",
            help: "file holding the bearer token (read again before each upload, so it can be rotated)"),
        OptionSpec(flag: "stream", environment: nil, help: "stream ID"),
        OptionSpec(flag: "format", environment: nil, help: "API wire format: json or protobuf (default json)"),
    ]

    static func parse(_ options: ParsedOptions) throws(UsageError) -> UploaderOptions {
        var uploader = UploaderOptions()
        guard let server = options.string("server") else { throw UsageError("--server is required") }
        uploader.server = try OptionValue.baseURL(server, flag: "server")
        switch (options.string("token"), options.string("token-file")) {
        case (.some, .some):
            throw UsageError("give the token once: --token (STREAMPREVIEW_TOKEN) or --token-file, not both")
        case (.some(let token), nil):
            guard !token.isEmpty else { throw UsageError("--token is empty") }
            uploader.token = token
        case (nil, .some(let path)):
            guard !path.isEmpty else { throw UsageError("--token-file needs a path") }
            uploader.tokenFile = path
        case (nil, nil):
            throw UsageError("a bearer token is required: STREAMPREVIEW_TOKEN, --token-file or --token")
        }
        guard let stream = options.string("stream"), let id = StreamID.parse(stream) else {
            throw UsageError("--stream must be a positive integer")
        }
        uploader.streamId = id
        switch options.string("format") {
        case nil, "json": uploader.format = .json
        case "protobuf": uploader.format = .protobuf
        default: throw UsageError("--format must be json or protobuf")
        }
        return uploader
    }

    /// The bearer token: the flag's or variable's, or the token file's content now (a missing or
    /// unreadable file is an `AppError` with exit code `config`).
    func loadToken() throws -> String {
        guard let tokenFile else { return token }
        return String(decoding: try SecretFile.read(tokenFile, what: "token file"), as: UTF8.self)
    }
}
