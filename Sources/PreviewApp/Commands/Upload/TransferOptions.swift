import PreviewServer

/// How an uploading command shows progress and repeats failed requests: `--progress`,
/// `--quiet`, `--retries`.
struct TransferOptions: Sendable, Equatable {
    enum Progress: String, Sendable, CaseIterable {
        /// A bar when stderr is a terminal, else plain lines.
        case auto
        case bar
        case plain
        case none
    }

    var progress = Progress.auto
    /// How many times a failed request is sent again (PUTs, commit; post only when safe).
    var retries = 5

    init() {}

    static let maxRetries: Int64 = 20

    static let specs: [OptionSpec] = [
        OptionSpec(
            flag: "progress", environment: nil,
            help:
                "auto, bar, plain or none: progress on stderr (default auto: a bar redrawn at most 10 times a second on a terminal, plain lines otherwise)"
        ),
        OptionSpec(
            flag: "quiet", environment: nil, help: "no progress and no retry notes on stderr; errors only",
            isSwitch: true),
        OptionSpec(
            flag: "retries", environment: "STREAMPREVIEW_RETRIES",
            help:
                "times a failed PUT or commit is sent again (resets, timeouts, 5xx, 408, 429), 0 to \(maxRetries) (default 5)"
        ),
    ]

    static func parse(_ options: ParsedOptions) throws(UsageError) -> TransferOptions {
        var transfer = TransferOptions()
        if let text = options.string("progress") {
            guard let progress = Progress(rawValue: text) else {
                throw UsageError("--progress must be auto, bar, plain or none, not '\(text)'")
            }
            transfer.progress = progress
        }
        if try options.bool("quiet") {
            if options.isSet("progress"), transfer.progress != .none {
                throw UsageError("--quiet shows no progress: drop --progress \(transfer.progress.rawValue) or --quiet")
            }
            transfer.progress = .none
        }
        transfer.retries = Int(try options.int64("retries", default: 5, range: 0...maxRetries))
        return transfer
    }

    /// The display for this run: `auto` is a bar when stderr is a terminal.
    func reporterMode(standardErrorIsTerminal: Bool) -> UploadProgressReporter.Mode {
        switch progress {
        case .auto: return standardErrorIsTerminal ? .bar : .plain
        case .bar: return .bar
        case .plain: return .plain
        case .none: return .none
        }
    }
}
