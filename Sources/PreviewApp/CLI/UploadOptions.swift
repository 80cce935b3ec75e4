import PreviewCore

/// `streampreview upload`: a real client that asks for URLs, PUTs both files and commits.
public struct UploadOptions: Sendable, Equatable {
    public var server = ""
    /// The bearer token from `--token` / `STREAMPREVIEW_TOKEN`; empty when `tokenFile` is given.
    public var token = ""
    /// `--token-file` / `STREAMPREVIEW_TOKEN_FILE`: read when the command runs.
    public var tokenFile: String?
    public var streamId: Int64 = 0
    public var moviePath = ""
    public var thumbnailPath = ""
    public var format = "json"

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
            flag: "token-file", environment: "STREAMPREVIEW_TOKEN_FILE", help: "file holding the bearer token"),
        OptionSpec(flag: "stream", environment: nil, help: "stream ID"),
        OptionSpec(flag: "format", environment: nil, help: "API wire format: json or protobuf (default json)"),
    ]

    static var help: String {
        """
        Usage: streampreview upload --server URL --stream ID CLIP THUMBNAIL

        The bearer token comes from STREAMPREVIEW_TOKEN, --token-file or --token (the flag
        shows in ps).

        Asks the server for signed upload URLs, PUTs the clip and the thumbnail with the
        headers the server names, commits, and prints the published feed item as JSON.
        Content types come from the file extensions (.mp4 .mov .jpg .jpeg .png .webp).

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))
        """
    }

    static func parse(_ options: ParsedOptions) throws(UsageError) -> UploadOptions {
        var upload = UploadOptions()
        guard let server = options.string("server") else { throw UsageError("--server is required") }
        upload.server = try ServeOptions.baseURL(server, flag: "server")
        switch (options.string("token"), options.string("token-file")) {
        case (.some, .some):
            throw UsageError("give the token once: --token (STREAMPREVIEW_TOKEN) or --token-file, not both")
        case (.some(let token), nil):
            guard !token.isEmpty else { throw UsageError("--token is empty") }
            upload.token = token
        case (nil, .some(let path)):
            guard !path.isEmpty else { throw UsageError("--token-file needs a path") }
            upload.tokenFile = path
        case (nil, nil):
            throw UsageError("a bearer token is required: STREAMPREVIEW_TOKEN, --token-file or --token")
        }
        guard let stream = options.string("stream"), let id = StreamID.parse(stream) else {
            throw UsageError("--stream must be a positive integer")
        }
        upload.streamId = id
        guard options.positional.count == 2 else { throw UsageError("give the clip file and the thumbnail file") }
        upload.moviePath = options.positional[0]
        upload.thumbnailPath = options.positional[1]
        if let format = options.string("format") {
            guard format == "json" || format == "protobuf" else {
                throw UsageError("--format must be json or protobuf")
            }
            upload.format = format
        }
        return upload
    }
}
