import PreviewCore
import PreviewServer

/// `streampreview upload`: a real client that asks for URLs, PUTs both files and commits.
struct UploadOptions: Sendable, Equatable {
    /// `--server`, the token, `--stream`, `--format`: the same as `capture`'s.
    var uploader = UploaderOptions()
    var moviePath = ""
    var thumbnailPath = ""
    /// `--progress`, `--quiet`, `--retries`.
    var transfer = TransferOptions()

    static let specs: [OptionSpec] = UploaderOptions.specs + TransferOptions.specs

    static var help: String {
        """
        Usage: streampreview upload --server URL --stream ID CLIP THUMBNAIL

        The bearer token comes from STREAMPREVIEW_TOKEN, --token-file or --token (the flag
        shows in ps).

        Asks the server for signed upload URLs, PUTs the clip and the thumbnail with the
        headers the server names, commits, and prints the published feed item as JSON on
        stdout. Content types come from the file extensions (.mp4 .mov .jpg .jpeg .png .webp).

        Progress goes to stderr: a bar per file on a terminal, plain lines otherwise, nothing
        with --quiet. A PUT that fails on the way (connection reset, timeout, 5xx, 408, 429)
        is sent again from the start of the file after a growing, jittered wait (at least the
        server's Retry-After), up to --retries times and while its signed URL has more than
        5 s to live; each retry prints one line. A 409 or 412 on a retry means an earlier
        attempt stored the object: the upload goes on to commit, which checks the bytes. Other
        4xx answers are final. Commit is retried the same way (a repeat is harmless); the
        request for URLs only when it cannot have reached the server (refused connection,
        429, 503), as each one reserves the stream's quota.

        Exit status: 0 published; 1 refused (a 4xx, such as 403 url_expired or 422); 75 the
        server or the store kept failing with errors that pass (5xx, 429, timeouts, resets)
        until the retries or the URL's lifetime ran out: run it again later; 64 bad options;
        78 unreadable token file.

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))
        """
    }

    static func parse(_ options: ParsedOptions) throws(UsageError) -> UploadOptions {
        var upload = UploadOptions()
        upload.uploader = try UploaderOptions.parse(options)
        guard options.positional.count == 2 else { throw UsageError("give the clip file and the thumbnail file") }
        upload.moviePath = options.positional[0]
        upload.thumbnailPath = options.positional[1]
        upload.transfer = try TransferOptions.parse(options)
        return upload
    }
}
