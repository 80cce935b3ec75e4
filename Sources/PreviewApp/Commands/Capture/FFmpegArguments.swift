import PreviewServer

/// How a capture clip is cut and encoded.
struct ClipSettings: Sendable, Equatable {
    /// Clip length (`-t`).
    var seconds: Int64 = 5
    /// The clip's height bound in pixels (even); smaller sources keep their height.
    var maxHeight: Int64 = 360
    /// The video bitrate cap in bits per second (`-maxrate`, with a buffer of twice that).
    var maxBitrate: Int64 = 800_000
    /// Whether the source's first audio track is kept.
    var audio = false
    /// ffmpeg's input format for the source (`-f`), when probing cannot tell (devices).
    var inputFormat: String?

    init() {}
}

/// What the source's name says about how to read it.
struct SourceTraits: Sendable, Equatable {
    /// Read through an ffmpeg network protocol, which takes a read timeout (`-rw_timeout`).
    var isNetwork = false
    /// An HLS playlist: read from its last segment, the live edge (`-live_start_index -1`).
    var isHLS = false
    /// A regular file: its last seconds are the newest (`-sseof`).
    var isFile = false

    /// URL schemes of ffmpeg protocols that honour `-rw_timeout` (`rtsp` and devices do not, and
    /// ffmpeg refuses an option nothing takes).
    static let networkSchemes: Set<String> = [
        "http", "https", "rtmp", "rtmps", "rtmpt", "rtmpe", "rtmpte", "rtmpts", "srt", "tcp", "udp",
    ]

    /// `isRegularFile`: whether `source` names a regular file now (the caller looks).
    init(source: String, inputFormat: String?, isRegularFile: Bool) {
        let scheme = Self.scheme(of: source)
        isNetwork = scheme.map { Self.networkSchemes.contains($0) } ?? false
        let path = source.split(separator: "?", maxSplits: 1).first.map(String.init) ?? source
        isHLS = inputFormat == "hls" || (inputFormat == nil && path.lowercased().hasSuffix(".m3u8"))
        isFile = scheme == nil && isRegularFile
    }

    /// The lower-cased scheme of `scheme://...`, nil when `source` is not such a URL.
    static func scheme(of source: String) -> String? {
        guard let separator = source.range(of: "://") else { return nil }
        let scheme = source[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }
}

/// The ffmpeg command lines of a capture: pure, so they are table-tested.
enum FFmpegArguments {
    /// Cuts `settings.seconds` of `source` into a fast-start H.264 MP4 at `output`: video scaled
    /// down to at most `maxHeight` (even sizes, aspect kept), CRF 23 capped at `maxBitrate`, a
    /// key frame every second (so the clip's length is exact and players can seek), 4:2:0 for
    /// every browser, no audio unless `audio`.
    static func clip(
        ffmpeg: String, source: String, traits: SourceTraits, settings: ClipSettings, readTimeoutSeconds: Int64,
        output: String
    ) -> [String] {
        var arguments = [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
        if traits.isNetwork { arguments += ["-rw_timeout", String(readTimeoutSeconds * 1_000_000)] }
        if traits.isHLS { arguments += ["-live_start_index", "-1"] }
        if traits.isFile { arguments += ["-sseof", "-\(settings.seconds)"] }
        if let format = settings.inputFormat { arguments += ["-f", format] }
        arguments += ["-i", source, "-map", "0:v:0"]
        if settings.audio { arguments += ["-map", "0:a:0?"] }
        arguments += [
            "-t", String(settings.seconds),
            "-vf", "scale=-2:'min(\(settings.maxHeight),trunc(ih/2)*2)',format=yuv420p",
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
            "-maxrate", String(settings.maxBitrate), "-bufsize", String(settings.maxBitrate * 2),
            "-force_key_frames", "expr:gte(t,n_forced*1)",
        ]
        arguments += settings.audio ? ["-c:a", "aac", "-b:a", "96k", "-ac", "2"] : ["-an"]
        arguments += ["-movflags", "+faststart", "-f", "mp4", output]
        return arguments
    }

    /// The first frame of `clip` as a JPEG at `output`: the thumbnail matches the clip's opening.
    static func thumbnail(ffmpeg: String, clip: String, output: String) -> [String] {
        [
            ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-i", clip, "-map", "0:v:0",
            "-frames:v", "1", "-q:v", "3", "-f", "image2", output,
        ]
    }
}
