import PreviewServer

/// `streampreview capture`: cuts the newest seconds of a live source into a preview clip and
/// its first frame with ffmpeg, uploads and commits both, and repeats.
struct CaptureOptions: Sendable, Equatable {
    var uploader = UploaderOptions()
    /// What ffmpeg reads: an HLS or DASH URL, RTMP/SRT, a file, a device.
    var source = ""
    /// How the clip is cut and encoded.
    var clip = ClipSettings()
    /// Seconds from one cycle's start to the next (`--every`); nil follows the server's
    /// `refreshAfter`.
    var every: Int64?
    /// One cycle, then exit with its result.
    var once = false
    /// The ffmpeg executable: a path, or a name looked up in PATH.
    var ffmpeg = "ffmpeg"
    /// Seconds one ffmpeg run may take before it is killed (a stalled source).
    var ffmpegTimeout: Int64 = 35

    /// The interval before the server has said one (or when it says none).
    static let fallbackInterval: Int64 = 60

    static let specs: [OptionSpec] =
        UploaderOptions.specs + [
            OptionSpec(
                flag: "source", environment: "STREAMPREVIEW_CAPTURE_SOURCE",
                help:
                    "what ffmpeg reads: an HLS (.m3u8) or DASH URL, rtmp:// or srt://, a file, a device (with --input-format)"
            ),
            OptionSpec(
                flag: "every", environment: "STREAMPREVIEW_CAPTURE_EVERY",
                help:
                    "time from one capture's start to the next: 90, 90s, 5m, 1h (default: the server's refreshAfter, which is its --preview-refresh)"
            ),
            OptionSpec(
                flag: "clip-seconds", environment: nil, help: "length of each clip in seconds, 1 to 60 (default 5)"),
            OptionSpec(
                flag: "max-height", environment: nil,
                help: "clip height bound in pixels, even, 64 to 2160; smaller sources keep theirs (default 360)"),
            OptionSpec(
                flag: "max-bitrate", environment: nil,
                help: "video bitrate cap in bits per second: 800000, 800k, 2M (default 800k)"),
            OptionSpec(
                flag: "audio", environment: nil,
                help: "keep the source's first audio track (AAC, 96 kbit/s) (default: no audio)", isSwitch: true),
            OptionSpec(
                flag: "input-format", environment: nil,
                help: "ffmpeg input format of the source (-f), e.g. v4l2 for /dev/video0 or hls (default: detected)"),
            OptionSpec(
                flag: "once", environment: nil, help: "capture and upload once, then exit with that result",
                isSwitch: true),
            OptionSpec(
                flag: "ffmpeg", environment: "STREAMPREVIEW_FFMPEG",
                help: "ffmpeg executable, a path or a name in PATH (default ffmpeg)"),
            OptionSpec(
                flag: "ffmpeg-timeout", environment: nil,
                help:
                    "seconds one ffmpeg run may take before it is killed and the source counts as stalled (default clip seconds + 30)"
            ),
        ]

    static var help: String {
        """
        Usage: streampreview capture --server URL --stream ID --source SRC [--every 60s] [--clip-seconds 5] [--once]

        The bearer token comes from STREAMPREVIEW_TOKEN, --token-file or --token (the flag
        shows in ps).

        Each cycle runs ffmpeg on the source and cuts its newest seconds into a fast-start H.264
        MP4 sized for a preview cell (no audio unless --audio) and the clip's first frame as a
        JPEG, then asks the server for upload URLs, PUTs both and commits. One line per cycle on
        stdout:
          captured stream=ID version=N bytes=B seconds=S
          error stream=ID stage=source|upload reason="..." retry_in=Ns
        A source that fails, stalls (ffmpeg runs past --ffmpeg-timeout and is killed), ends,
        gives less than 4/5 of the clip or the same clip again is retried with backoff (1 s, 2 s,
        4 s ... up to the interval); a clip the server refuses (4xx, such as 422) is not sent
        again: the next cycle, one interval later, cuts a new one.

        Which seconds: a live HLS playlist is read from its last segment (the live edge); a
        regular file from N seconds before its end (a recording being written gives its newest
        seconds); anything else (RTMP, SRT, DASH, a device) from when ffmpeg connects.

        SIGTERM or SIGINT abandons a capture in progress (ffmpeg is killed), lets an upload in
        progress finish, and exits 0.

        Exit codes: 0 stopped by a signal, or --once published; 64 bad command line; 69 ffmpeg
        not found; 78 the token file cannot be read at start. With --once also: 1 the server
        refused the clip (a 4xx, such as 422); 69 the source failed; 75 the server kept failing
        with errors that pass (5xx, 429, timeouts): run it again later.

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))
        """
    }

    static func parse(_ options: ParsedOptions) throws(UsageError) -> CaptureOptions {
        var capture = CaptureOptions()
        capture.uploader = try UploaderOptions.parse(options)
        guard let source = options.string("source"), !source.isEmpty else {
            throw UsageError("--source is required: an HLS or DASH URL, rtmp:// or srt://, a file, a device")
        }
        capture.source = source
        if let every = options.string("every") {
            guard let seconds = Self.seconds(every), (1...86_400).contains(seconds) else {
                throw UsageError("--every must be a time from 1s to 24h (90, 90s, 5m, 1h), not '\(every)'")
            }
            capture.every = seconds
        }
        capture.clip.seconds = try options.int64("clip-seconds", default: capture.clip.seconds, range: 1...60)
        capture.clip.maxHeight = try options.int64("max-height", default: capture.clip.maxHeight, range: 64...2160)
        guard capture.clip.maxHeight % 2 == 0 else {
            throw UsageError("--max-height must be even (H.264 in 4:2:0 needs even sizes)")
        }
        if let rate = options.string("max-bitrate") {
            guard let bits = Self.bitrate(rate), (50_000...50_000_000).contains(bits) else {
                throw UsageError(
                    "--max-bitrate must be from 50k to 50M bits per second (800000, 800k, 2M), not '\(rate)'")
            }
            capture.clip.maxBitrate = bits
        }
        capture.clip.audio = try options.bool("audio")
        if let format = options.string("input-format") {
            guard !format.isEmpty, format.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw UsageError("--input-format must be an ffmpeg format name such as v4l2 or hls, not '\(format)'")
            }
            capture.clip.inputFormat = format
        }
        capture.once = try options.bool("once")
        if let ffmpeg = options.string("ffmpeg") {
            guard !ffmpeg.isEmpty else { throw UsageError("--ffmpeg needs a path or a name") }
            capture.ffmpeg = ffmpeg
        }
        capture.ffmpegTimeout = try options.int64(
            "ffmpeg-timeout", default: capture.clip.seconds + 30, range: capture.clip.seconds + 1...3600)
        return capture
    }

    /// Seconds from `90`, `90s`, `5m` or `1h`; nil for anything else.
    static func seconds(_ text: String) -> Int64? {
        scaled(text, units: ["s": 1, "m": 60, "h": 3600])
    }

    /// Bits per second from `800000`, `800k` or `2M`; nil for anything else.
    static func bitrate(_ text: String) -> Int64? {
        scaled(text, units: ["k": 1000, "K": 1000, "m": 1_000_000, "M": 1_000_000])
    }

    /// Up to nine ASCII digits, times the multiplier of an optional one-letter unit.
    private static func scaled(_ text: String, units: [Character: Int64]) -> Int64? {
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = text.last, let multiplier = units[last] {
            digits = digits.dropLast()
            unit = multiplier
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let value = Int64(digits)
        else { return nil }
        return value * unit
    }
}
