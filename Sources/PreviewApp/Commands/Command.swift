import PreviewCore
import PreviewServer

/// A parsed command line.
enum Command: Sendable, Equatable {
    case serve(ServeOptions)
    case sweep(SweepOptions)
    case token(TokenOptions)
    case upload(UploadOptions)
    case presign(PresignOptions)
    case capture(CaptureOptions)
    case webhooks(WebhooksOptions)
    /// Print this text on stdout and exit 0.
    case help(String)

    /// `arguments` without the program name. Pure: flags override the environment,
    /// which overrides the defaults.
    static func parse(_ arguments: [String], environment: [String: String]) -> Result<Command, UsageError> {
        guard let name = arguments.first else { return .success(.help(Self.usage)) }
        let rest = Array(arguments.dropFirst())
        do throws(UsageError) {
            switch name {
            case "serve":
                let options = try OptionParser.parse(rest, environment: environment, specs: ServeOptions.specs)
                if options.helpRequested { return .success(.help(ServeOptions.help)) }
                return .success(.serve(try ServeOptions.parse(options, environment: environment)))
            case "sweep":
                let options = try OptionParser.parse(rest, environment: environment, specs: SweepOptions.specs)
                if options.helpRequested { return .success(.help(SweepOptions.help)) }
                return .success(.sweep(try SweepOptions.parse(options, environment: environment)))
            case "token":
                let options = try OptionParser.parse(rest, environment: environment, specs: TokenOptions.specs)
                if options.helpRequested { return .success(.help(TokenOptions.help)) }
                return .success(.token(try TokenOptions.parse(options)))
            case "upload":
                let options = try OptionParser.parse(
                    rest, environment: environment, specs: UploadOptions.specs, positionalAllowed: 2)
                if options.helpRequested { return .success(.help(UploadOptions.help)) }
                return .success(.upload(try UploadOptions.parse(options)))
            case "presign":
                let options = try OptionParser.parse(rest, environment: environment, specs: PresignOptions.specs)
                if options.helpRequested { return .success(.help(PresignOptions.help)) }
                return .success(.presign(try PresignOptions.parse(options, environment: environment)))
            case "capture":
                let options = try OptionParser.parse(rest, environment: environment, specs: CaptureOptions.specs)
                if options.helpRequested { return .success(.help(CaptureOptions.help)) }
                return .success(.capture(try CaptureOptions.parse(options)))
            case "webhooks":
                let options = try OptionParser.parse(
                    rest, environment: environment, specs: WebhooksOptions.specs, positionalAllowed: 10_000)
                if options.helpRequested { return .success(.help(WebhooksOptions.help)) }
                return .success(.webhooks(try WebhooksOptions.parse(options)))
            case "help", "--help", "-h":
                return .success(.help(Self.usage))
            default:
                throw UsageError("unknown command '\(name)'; see 'streampreview --help'")
            }
        } catch {
            return .failure(error)
        }
    }

    static let usage = """
        streampreview: live-stream preview clips: signed uploads, verified commits, a ranked feed.

        Usage: streampreview <command> [options]

        Commands:
          serve     run the HTTP API (with its own Redis and object store unless configured)
          sweep     one run of the sweeper: expire stale previews, delete what is due, exit
          token     print a bearer token signed with the server's secret
          upload    upload a clip and thumbnail to a running server and commit them
          presign   print a presigned object URL (s3, gcs or local), like 'aws s3 presign'
          capture   cut preview clips from a live source with ffmpeg and publish them, repeatedly
          webhooks  list webhook deliveries that failed for good (dead), or deliver them again (replay)

        Run 'streampreview <command> --help' for the options of a command.
        """
}

extension ServeOptions {
    static var help: String {
        """
        Usage: streampreview serve [options]

        Runs the API. With nothing configured it starts its own redis-server (unix socket,
        append-only file) and a local object store under the data dir, keeps a token secret
        there, and prints 'listening on http://HOST:PORT' when ready.

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))

        \(StorageOptions.credentialVariables)

        For tests only: STREAMPREVIEW_TEST_CLOCK_FILE names a file holding whole seconds added to
        the clock of serve, token and presign, so expiry is tested without waiting. Only debug
        builds read it; release builds ignore it (serve logs test_clock_ignored).
        """
    }
}
