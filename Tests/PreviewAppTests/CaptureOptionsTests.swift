import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct CaptureOptionsTests {
    static let minimal = ["capture", "--server", "http://127.0.0.1:8080/", "--stream", "7", "--source", "in.m3u8"]

    private func parse(_ arguments: [String], environment: [String: String] = ["STREAMPREVIEW_TOKEN": "t"]) throws
        -> CaptureOptions
    {
        let parsed = try Command.parse(arguments, environment: environment).get()
        guard case .capture(let options) = parsed else { throw UsageError("not capture: \(parsed)") }
        return options
    }

    private func usageError(_ arguments: [String], environment: [String: String] = ["STREAMPREVIEW_TOKEN": "t"])
        -> UsageError?
    {
        if case .failure(let error) = Command.parse(arguments, environment: environment) { return error }
        return nil
    }

    private func help(_ arguments: [String]) throws -> String {
        let parsed = try Command.parse(arguments, environment: [:]).get()
        guard case .help(let text) = parsed else { throw UsageError("not help: \(parsed)") }
        return text
    }

    @Test func theDefaultsFollowTheServerWithFiveSecondSilentClipsOf360Lines() throws {
        let options = try parse(Self.minimal)
        var expected = CaptureOptions()
        expected.uploader.server = "http://127.0.0.1:8080"
        expected.uploader.token = "t"
        expected.uploader.streamId = 7
        expected.source = "in.m3u8"
        #expect(options == expected)
        #expect(options.every == nil && options.clip.seconds == 5 && options.clip.maxHeight == 360)
        #expect(options.clip.maxBitrate == 800_000 && !options.clip.audio && !options.once)
        #expect(options.ffmpegTimeout == 35, "clip seconds + 30")
    }

    @Test func everyFlagIsRead() throws {
        let options = try parse(
            [
                "capture", "--server", "https://api.example", "--token-file", "/run/token", "--stream", "42",
                "--source", "rtmp://cam/live", "--every", "2m", "--clip-seconds", "8", "--max-height", "480",
                "--max-bitrate", "1500k", "--audio", "--input-format", "flv", "--once", "--ffmpeg", "/opt/ffmpeg",
                "--ffmpeg-timeout", "20", "--format", "protobuf",
            ], environment: [:])
        #expect(options.uploader.tokenFile == "/run/token" && options.uploader.token.isEmpty)
        #expect(options.uploader.format == .protobuf && options.uploader.streamId == 42)
        #expect(options.source == "rtmp://cam/live" && options.every == 120 && options.once)
        #expect(options.clip.seconds == 8 && options.clip.maxHeight == 480 && options.clip.maxBitrate == 1_500_000)
        #expect(options.clip.audio && options.clip.inputFormat == "flv")
        #expect(options.ffmpeg == "/opt/ffmpeg" && options.ffmpegTimeout == 20)
    }

    @Test func theEnvironmentFillsWhatFlagsDoNotGive() throws {
        let environment = [
            "STREAMPREVIEW_SERVER": "http://10.0.0.2:8080", "STREAMPREVIEW_TOKEN": "secret",
            "STREAMPREVIEW_CAPTURE_SOURCE": "srt://cam:9000", "STREAMPREVIEW_CAPTURE_EVERY": "45",
            "STREAMPREVIEW_FFMPEG": "/usr/local/bin/ffmpeg",
        ]
        let options = try parse(["capture", "--stream", "3"], environment: environment)
        #expect(options.uploader.server == "http://10.0.0.2:8080" && options.uploader.token == "secret")
        #expect(options.source == "srt://cam:9000" && options.every == 45 && options.ffmpeg == "/usr/local/bin/ffmpeg")
        let flagged = try parse(["capture", "--stream", "3", "--every", "10s"], environment: environment)
        #expect(flagged.every == 10)
    }

    @Test(arguments: [
        ["--every", "0"], ["--every", "25h"], ["--every", "5x"], ["--every", "-5"], ["--every", "s"],
        ["--clip-seconds", "0"], ["--clip-seconds", "61"], ["--max-height", "361"], ["--max-height", "32"],
        ["--max-bitrate", "10"], ["--max-bitrate", "1.5M"], ["--max-bitrate", "60M"], ["--ffmpeg-timeout", "5"],
        ["--input-format", "v4l2 -x"], ["--audio=maybe"], ["--format", "xml"], ["extra"], ["--token-file", "/t"],
        ["--ffmpeg", ""],
    ])
    func badCaptureLinesAreUsageErrors(_ extra: [String]) throws {
        let error = try #require(usageError(Self.minimal + extra), "accepted \(extra)")
        #expect(!error.message.isEmpty)
    }

    @Test func aSourceAServerAStreamAndATokenAreRequired() throws {
        for missing in ["--source", "--server", "--stream"] {
            var arguments = Self.minimal
            let index = try #require(arguments.firstIndex(of: missing))
            arguments.removeSubrange(index...index + 1)
            #expect(usageError(arguments)?.message.contains(missing.dropFirst(2)) == true, "\(missing)")
        }
        #expect(usageError(Self.minimal, environment: [:])?.message.contains("token") == true)
    }

    @Test func helpListsEveryOptionTheOutputLinesAndTheExitCodes() throws {
        let text = try help(["capture", "--help"])
        #expect(text.contains("Usage: streampreview capture"))
        for spec in CaptureOptions.specs {
            #expect(text.contains("--\(spec.flag)"))
            if let variable = spec.environment { #expect(text.contains(variable)) }
        }
        #expect(text.contains("captured stream=ID version=N bytes=B seconds=S"))
        #expect(text.contains("Exit codes") && text.contains("69") && text.contains("78"))
        #expect(try help([]).contains("capture   cut preview clips"))
    }

    @Test(
        arguments: [
            ("90", 90), ("90s", 90), ("5m", 300), ("1h", 3600), ("0", 0), ("", nil), ("m", nil), ("1.5m", nil),
            ("+5", nil), ("5 s", nil), ("٣", nil), ("9999999999", nil),
        ] as [(String, Int64?)])
    func timesAreWholeSecondsMinutesOrHours(_ text: String, _ seconds: Int64?) {
        #expect(CaptureOptions.seconds(text) == seconds)
    }

    @Test(
        arguments: [
            ("800000", 800_000), ("800k", 800_000), ("2M", 2_000_000), ("2m", 2_000_000), ("1.5M", nil), ("k", nil),
            ("-1k", nil),
        ] as [(String, Int64?)])
    func bitratesAreBitsWithAnOptionalUnit(_ text: String, _ bits: Int64?) {
        #expect(CaptureOptions.bitrate(text) == bits)
    }
}
