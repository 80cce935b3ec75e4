import PreviewCore
import PreviewServer
import StreamPreviewClient

/// How an uploading command reaches the API: the server, a streamer's bearer token, the stream,
/// the wire format and what each preview is said to be, shared by `upload` and `capture`.
struct UploaderOptions: Sendable, Equatable {
    var server = ""
    /// The bearer token from `--token` / `STREAMPREVIEW_TOKEN`; empty when `tokenFile` is given.
    var token = ""
    /// `--token-file` / `STREAMPREVIEW_TOKEN_FILE`: read when the command runs.
    var tokenFile: String?
    var streamId: Int64 = 0
    var format = WireFormat.json
    /// `--title`, `--category`, `--language`, `--mature`, `--alt-text`: sent with each upload.
    var details = PreviewDetails()

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
        OptionSpec(flag: "title", environment: nil, help: "the preview's title (at most 140 characters)"),
        OptionSpec(
            flag: "category", environment: nil,
            help: "the preview's category, lower-case letters, digits and hyphens (music, just-chatting)"),
        OptionSpec(flag: "language", environment: nil, help: "the stream's language, a BCP 47 tag (ja, en-US)"),
        OptionSpec(flag: "mature", environment: nil, help: "the preview is for mature audiences", isSwitch: true),
        OptionSpec(
            flag: "alt-text", environment: nil,
            help: "what the clip shows, for screen readers (at most 500 characters)"),
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
        // Checked as the server checks it, so a mistake is a usage error before anything is sent.
        let said = PreviewDescription(
            title: options.string("title") ?? "", category: options.string("category") ?? "",
            language: options.string("language") ?? "", mature: try options.bool("mature"),
            altText: options.string("alt-text") ?? "")
        switch said.validated() {
        case .success(let description):
            uploader.details = PreviewDetails(
                title: description.title, category: description.category, language: description.language,
                mature: description.mature, altText: description.altText)
        case .failure(let error):
            let flag = error.target == "altText" ? "alt-text" : error.target
            throw UsageError("--\(flag): \(error.message)")
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
