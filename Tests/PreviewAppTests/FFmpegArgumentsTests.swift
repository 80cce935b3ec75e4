import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct FFmpegArgumentsTests {
    func clip(_ source: String, file: Bool = false, _ change: (inout ClipSettings) -> Void = { _ in }) -> [String] {
        var settings = ClipSettings()
        change(&settings)
        let traits = SourceTraits(source: source, inputFormat: settings.inputFormat, isRegularFile: file)
        return FFmpegArguments.clip(
            ffmpeg: "/usr/bin/ffmpeg", source: source, traits: traits, settings: settings, readTimeoutSeconds: 10,
            output: "/tmp/x/clip.mp4")
    }

    /// The options given before `-i`, which apply to the input.
    func inputOptions(_ arguments: [String]) -> ArraySlice<String> {
        arguments[..<(arguments.firstIndex(of: "-i") ?? arguments.endIndex)]
    }

    func value(of flag: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: flag).map { arguments[$0 + 1] }
    }

    @Test(arguments: [
        ("https://cdn.example/live/index.m3u8?token=a", true, true, false),
        ("http://127.0.0.1:8/live.M3U8", true, true, false),
        ("https://cdn.example/live/manifest.mpd", true, false, false),
        ("rtmp://ingest.example/live/key", true, false, false),
        ("srt://cam:9000?mode=caller", true, false, false),
        ("rtsp://cam/stream", false, false, false),
        ("/var/rec/stream.ts", false, false, true),
        ("/dev/video0", false, false, false),
        ("3://odd", false, false, false),
    ])
    func theSourceNameTellsHowToReadIt(_ source: String, network: Bool, hls: Bool, file: Bool) {
        let regular = source.hasPrefix("/var")
        let traits = SourceTraits(source: source, inputFormat: nil, isRegularFile: regular)
        #expect(traits.isNetwork == network && traits.isHLS == hls && traits.isFile == file, "\(source)")
    }

    @Test func aLiveHLSPlaylistIsReadFromItsLastSegmentWithAReadTimeout() {
        let arguments = clip("http://127.0.0.1:8/live.m3u8")
        let input = inputOptions(arguments)
        #expect(value(of: "-live_start_index", in: Array(input)) == "-1")
        #expect(value(of: "-rw_timeout", in: Array(input)) == "10000000", "microseconds")
        #expect(!input.contains("-sseof"))
        #expect(value(of: "-i", in: arguments) == "http://127.0.0.1:8/live.m3u8")
    }

    @Test func aFileIsReadFromItsLastSecondsAndADeviceAsItComes() {
        let file = clip("/var/rec/stream.ts", file: true) { $0.seconds = 8 }
        #expect(value(of: "-sseof", in: Array(inputOptions(file))) == "-8")
        #expect(!file.contains("-rw_timeout") && !file.contains("-live_start_index"))
        let device = clip("/dev/video0") { $0.inputFormat = "v4l2" }
        #expect(Array(inputOptions(device).suffix(2)) == ["-f", "v4l2"])
        #expect(!device.contains("-sseof") && !device.contains("-rw_timeout"))
        let forcedHLS = clip("https://cdn.example/live") { $0.inputFormat = "hls" }
        #expect(value(of: "-live_start_index", in: forcedHLS) == "-1")
    }

    @Test func theClipIsAFastStartH264OfBoundedHeightBitrateAndLength() {
        let arguments = clip("rtmp://ingest/live") {
            $0.seconds = 6
            $0.maxHeight = 480
            $0.maxBitrate = 1_200_000
        }
        #expect(value(of: "-t", in: arguments) == "6")
        #expect(value(of: "-map", in: arguments) == "0:v:0")
        #expect(value(of: "-vf", in: arguments) == "scale=-2:'min(480,trunc(ih/2)*2)',format=yuv420p")
        #expect(value(of: "-c:v", in: arguments) == "libx264")
        #expect(value(of: "-maxrate", in: arguments) == "1200000" && value(of: "-bufsize", in: arguments) == "2400000")
        #expect(value(of: "-force_key_frames", in: arguments) == "expr:gte(t,n_forced*1)", "a key frame a second")
        #expect(value(of: "-movflags", in: arguments) == "+faststart")
        #expect(arguments.contains("-an") && !arguments.contains("-c:a"))
        #expect(Array(arguments.suffix(3)) == ["-f", "mp4", "/tmp/x/clip.mp4"])
        #expect(Array(arguments.prefix(1)) == ["/usr/bin/ffmpeg"] && arguments.contains("-nostdin"))
    }

    @Test func audioKeepsTheFirstAudioTrackWhenThereIsOne() {
        let arguments = clip("rtmp://ingest/live") { $0.audio = true }
        #expect(arguments.filter { $0 == "-map" }.count == 2 && arguments.contains("0:a:0?"))
        #expect(value(of: "-c:a", in: arguments) == "aac" && !arguments.contains("-an"))
    }

    @Test func theThumbnailIsTheClipsFirstFrame() {
        let arguments = FFmpegArguments.thumbnail(
            ffmpeg: "/usr/bin/ffmpeg", clip: "/tmp/x/clip.mp4", output: "/tmp/x/t.jpg")
        #expect(value(of: "-i", in: arguments) == "/tmp/x/clip.mp4")
        #expect(value(of: "-frames:v", in: arguments) == "1")
        #expect(arguments.last == "/tmp/x/t.jpg")
    }
}
