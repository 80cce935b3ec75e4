import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `streampreview capture` against a live HLS stream that ffmpeg encodes on this machine (a test
/// pattern with a burnt-in clock, one-second segments) and a file server on loopback serves,
/// publishing to a real `serve`; and the refresh times the server tells and shows.
@Suite("Capture from a live source", .serialized)
struct CaptureTests {
    @Test(
        "capture --every 3s publishes a new fast-start H.264 clip each cycle, rides out the source stalling and coming back, and exits 0 on SIGTERM"
    )
    func capturesALiveStream() throws {
        let fixture = try CaptureFixture()
        let foldersBefore = try captureFolders()
        let run = try fixture.startCapture(["--every", "3s", "--ffmpeg-timeout", "10"])
        let clips = PublishedClips()
        // Each poll reads the feed: ten a second are plenty for cycles 3 s apart.
        let threeCycles = eventually(within: 120, everyMicroseconds: 100_000) {
            clips.poll(fixture.api, stream: CaptureFixture.stream)
            return (clips.count >= 3 && run.capturedLines.count >= 3) || run.exitStatus != nil
        }
        try #require(threeCycles && run.exitStatus == nil, "\(run.output)")

        let lines = run.capturedLines
        #expect(lines.map(\.version) == Array(1...Int64(lines.count)), "one line per cycle, versions in order")
        #expect(lines.allSatisfy { $0.stream == CaptureFixture.stream })
        let published = clips.all
        for clip in published {
            let line = try #require(lines.first { $0.version == clip.item.previewVersion }, "\(run.output)")
            #expect(line.bytes == Int64(clip.movie.count), "the line's bytes are the clip's")
            #expect(clip.item.fastStart && !clip.item.stale)
            let boxes = topLevelBoxes(clip.movie)
            let moov = try #require(boxes.firstIndex(of: "moov"), "\(boxes)")
            let mdat = try #require(boxes.firstIndex(of: "mdat"), "\(boxes)")
            #expect(moov < mdat, "fast-start: \(boxes)")
            let video = try ProbedMedia.probe(clip.movie, fileExtension: "mp4")
            #expect(video.codec == "h264" && video.width == 480 && video.height == 360, "\(video)")
            #expect(video.audioStreams == 0, "no audio by default")
            #expect(abs(video.duration - 2) <= 1, "2 s ± one GOP (1 s): \(video.duration)")
            #expect(video.decodedFrames >= 25, "every frame decodes: \(video)")
            #expect(abs(line.seconds - video.duration) < 0.1, "\(line) vs \(video)")
            let thumbnail = try ProbedMedia.probe(clip.thumbnail, fileExtension: "jpg")
            #expect(thumbnail.codec == "mjpeg" && thumbnail.width == 480 && thumbnail.height == 360, "\(thumbnail)")
        }
        for (older, newer) in zip(published, published.dropFirst()) {
            #expect(
                older.movie != newer.movie, "versions \(older.item.previewVersion) and \(newer.item.previewVersion)")
            #expect(older.thumbnail != newer.thumbnail, "the burnt-in clock moved")
        }
        print(
            "capture figures (live HLS, 2 s clips, every 3 s): "
                + lines.map { "v\($0.version) \($0.bytes) B \($0.seconds) s" }.joined(separator: ", "))

        // The encoder dies without ending its playlist: ffmpeg waits for segments that never come.
        let earlierErrors = run.errorLines(stage: "source").count
        fixture.source.kill()
        let stalled = eventually(within: 90) {
            run.errorLines(stage: "source").count >= earlierErrors + 2 || run.exitStatus != nil
        }
        try #require(stalled && run.exitStatus == nil, "a stalled source does not end the job: \(run.output)")
        let errors = Array(run.errorLines(stage: "source").dropFirst(earlierErrors))
        #expect(errors.contains { $0.contains("deadline") }, "ffmpeg is killed at its deadline: \(errors)")
        #expect(errors[0].hasSuffix(" retry_in=1s") && errors[1].hasSuffix(" retry_in=2s"), "backoff: \(errors)")

        let capturedBeforeRestart = run.capturedLines
        try fixture.source.start()
        let resumed = eventually(within: 90) {
            run.capturedLines.count > capturedBeforeRestart.count || run.exitStatus != nil
        }
        try #require(resumed && run.exitStatus == nil, "captures resume with the source: \(run.output)")
        let next = try #require(run.capturedLines.last)
        #expect(next.version == (capturedBeforeRestart.last?.version ?? 0) + 1)

        run.send(SIGTERM)
        #expect(run.wait(timeout: 30) == 0, "\(run.output)")
        #expect(run.stderr.contains("event=capture_stopped signal=SIGTERM"))
        #expect(try captureFolders().subtracting(foldersBefore).isEmpty, "each cycle's folder is removed")
    }

    @Test(
        "Upload answers carry --preview-refresh as refreshAfter, capture without --every follows it, and the feed marks a preview stale once it has passed"
    )
    func refreshTimesAreToldFollowedAndShown() throws {
        let fixture = try CaptureFixture(serveArguments: ["--preview-refresh", "6", "--feed-max-age-ms", "200"])
        let api = fixture.api
        let asked = StreamPreviewPostRequest(streamId: 8, movieBytes: 4096, thumbnailBytes: 1024)
        let json = try api.requestUpload(asked, token: fixture.token)
        try #require(json.status == 200, "\(json.text)")
        #expect(try json.json(StreamPreviewPostResponse.self).refreshAfter == 6)
        #expect(json.text.contains(#""refreshAfter":"6""#))
        let protobuf = try api.send(
            "POST", "/api/preview/post",
            headers: [("Content-Type", "application/x-protobuf"), ("Accept", "application/x-protobuf")],
            body: asked.protobufBytes(), token: fixture.token)
        try #require(protobuf.status == 200, "\(protobuf.text)")
        #expect(try protobuf.protobuf(StreamPreviewPostResponse.self).refreshAfter == 6)

        let committed = try api.publish(streamId: 8, token: fixture.token)
        #expect(!committed.stale, "the commit answer")
        let fresh = try api.feed()
        try #require(fresh.status == 200)
        #expect(try fresh.json(FeedResponse.self).items.first { $0.streamId == 8 }?.stale == false)
        let freshTag = try #require(fresh.headers["ETag"])
        let turnedStale = eventually(within: 30) {
            guard let reply = try? api.feed(), reply.status == 200 else { return false }
            return (try? reply.json(FeedResponse.self))?.items.first { $0.streamId == 8 }?.stale == true
        }
        try #require(turnedStale, "the feed marks the preview stale")
        #expect(unixNow() >= committed.updatedAt + 6, "not before its refresh time")
        let again = try api.feed(headers: [("If-None-Match", freshTag)])
        #expect(again.status == 200, "the entity tag covers the flag")
        let binary = try api.feed(headers: [("Accept", "application/x-protobuf")])
        #expect(try binary.protobuf(FeedResponse.self).items.first { $0.streamId == 8 }?.stale == true)

        // Without --every, a capture's next cycle is refreshAfter (6 s) after the last, not a minute.
        let run = try fixture.startCapture([])
        let twoCycles = eventually(within: 45) { run.capturedLines.count >= 2 || run.exitStatus != nil }
        try #require(twoCycles && run.exitStatus == nil, "\(run.output)")
        run.send(SIGTERM)
        #expect(run.wait(timeout: 30) == 0, "\(run.output)")
    }

    @Test(
        "capture --once publishes one clip and exits 0; a source, ffmpeg or token file that is not there exits 69 or 78"
    )
    func onceRunsOneCycle() throws {
        let fixture = try CaptureFixture()
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-cap")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort
        let tokenFile = folder + "/token"
        try Data((fixture.token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
        let binary = try ServiceProcess.binaryPath()
        func capture(source: String, _ extra: [String] = []) throws -> ProcessResult {
            try ProcessResult.run(
                [
                    binary, "capture", "--server", fixture.service.baseURL, "--stream", String(CaptureFixture.stream),
                    "--source", source, "--clip-seconds", "2", "--token-file", tokenFile, "--once",
                ] + extra, timeout: 120)
        }

        let once = try capture(source: fixture.sourceURL)
        #expect(once.status == 0, "\(once.stderr)")
        #expect(once.stdout.split(separator: "\n").count == 1, "one line: \(once.stdout)")
        #expect(CapturedLine.all(in: once.stdout).map(\.version) == [1])
        let feed = try fixture.api.feed()
        #expect(try feed.json(FeedResponse.self).items.map(\.previewVersion) == [1])

        let port = try freeLoopbackPort()
        let dead = try capture(source: "http://127.0.0.1:\(port)/live/sk_live_123.m3u8")
        #expect(dead.status == 69, "\(dead.stdout) \(dead.stderr)")
        let lines = dead.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("error stream=7 stage=source reason="), "\(dead.stdout)")
        #expect(!dead.stdout.contains("sk_live_123"), "the source URL may hold a stream key: \(dead.stdout)")
        #expect(!dead.stdout.contains("retry_in"), "--once does not retry")

        let noFFmpeg = try capture(source: fixture.sourceURL, ["--ffmpeg", folder + "/no-ffmpeg"])
        #expect(noFFmpeg.status == 69 && noFFmpeg.stderr.contains("apt-get install ffmpeg"), "\(noFFmpeg.stderr)")
        try FileManager.default.removeItem(atPath: tokenFile)
        let noToken = try capture(source: fixture.sourceURL)
        #expect(noToken.status == 78 && noToken.stdout.isEmpty, "\(noToken.stderr)")
    }

    @Test("A clip the moderation hook refuses (422) is reported once per cycle and never sent again")
    func refusedClipsAreReportedNotRetried() throws {
        let hook = try RawHTTPServer { _ in
            .respond(
                RawHTTPServer.response(
                    200, headers: [("Content-Type", "application/json")],
                    body: Array(#"{"allow":false,"reason":"no faces on the preview"}"#.utf8)))
        }
        defer { hook.stop() }
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-cap")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort
        let secret = folder + "/hook-secret"
        try Data(String(repeating: "s", count: 40).utf8).write(to: URL(fileURLWithPath: secret))
        let fixture = try CaptureFixture(serveArguments: [
            "--commit-hook-url", hook.url + "/hook", "--commit-hook-secret-file", secret,
        ])
        let run = try fixture.startCapture(["--every", "12s"])
        let twoRefusals = eventually(within: 90) { run.errorLines(stage: "upload").count >= 2 || run.exitStatus != nil }
        try #require(twoRefusals && run.exitStatus == nil, "\(run.output)")
        run.send(SIGTERM)
        #expect(run.wait(timeout: 30) == 0, "\(run.output)")

        let refusals = run.errorLines(stage: "upload")
        for line in refusals {
            #expect(line.contains("422") && line.contains("rejected_by_hook"), "\(line)")
            let wait = line.split(separator: " ").last { $0.hasPrefix("retry_in=") }
            let seconds = wait.flatMap { Int($0.dropFirst("retry_in=".count).dropLast()) } ?? 0
            #expect(seconds >= 3, "the next interval, not a quick retry: \(line)")
        }
        #expect(run.capturedLines.isEmpty)
        #expect(hook.requests.count == refusals.count, "each refused clip was committed once: \(run.output)")
        let uploads = hook.requests.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(Set(uploads).count == uploads.count, "a new clip each cycle")
        #expect(try fixture.api.feed().json(FeedResponse.self).items.isEmpty)
    }

    @Test("A file source gives its last seconds, and the same clip again is reported as a still source, not published")
    func aFileThatStaysTheSameIsNotPublishedTwice() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-cap")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort
        let recording = folder + "/recording.ts"
        // 5 s of red, then 3 s of blue: the last 3 s are all blue.
        let made = try ProcessResult.run(
            [
                try FFmpegClips.ffmpegPath(), "-hide_banner", "-loglevel", "error", "-nostdin",
                "-f", "lavfi", "-i", "color=c=red:size=320x240:rate=25:duration=5",
                "-f", "lavfi", "-i", "color=c=blue:size=320x240:rate=25:duration=3",
                "-filter_complex", "[0:v][1:v]concat=n=2:v=1", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                "-f", "mpegts", recording,
            ], timeout: 120)
        try #require(made.status == 0, "\(made.stderr)")
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "cam", role: "streamer", streams: [9])
        let run = try BackgroundRun(
            [
                "capture", "--server", service.baseURL, "--stream", "9", "--source", recording, "--clip-seconds", "3",
                "--every", "1s",
            ],
            environment: ["STREAMPREVIEW_TOKEN": token])
        let still = eventually(within: 90) { !run.errorLines(stage: "source").isEmpty || run.exitStatus != nil }
        try #require(still && run.exitStatus == nil, "\(run.output)")
        run.send(SIGTERM)
        #expect(run.wait(timeout: 30) == 0, "\(run.output)")

        #expect(run.capturedLines.map(\.version) == [1], "published once: \(run.output)")
        let refusal = try #require(run.errorLines(stage: "source").first)
        #expect(refusal.contains("same clip as version 1"), "\(refusal)")
        let item = try #require(try api.feed().json(FeedResponse.self).items.first)
        let video = try ProbedMedia.probe(try api.send("GET", item.movieUrl).body, fileExtension: "mp4")
        #expect(abs(video.duration - 3) <= 1 && video.width == 320 && video.height == 240, "\(video)")
        let chroma = try ProbedMedia.averageChroma(ofImage: try api.send("GET", item.thumbnailUrl).body)
        #expect(chroma.blue > 200 && chroma.red < 150, "the clip opens in the last 3 s, which are blue: \(chroma)")
    }

    /// The per-cycle folders of capture runs now, in the temporary folder the capture child
    /// inherits (TMPDIR, else /tmp); a folder that cannot be listed fails the test.
    private func captureFolders() throws -> Set<String> {
        Set(
            try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter {
                $0.hasPrefix("sp-capture-")
            })
    }
}

/// A live HLS source on a loopback file server, a fresh `serve`, and a token of streamer `cam`
/// for streams 7 and 8.
struct CaptureFixture {
    static let stream: Int64 = 7
    let source: LiveHLSSource
    let files: StaticFileServer
    let service: ServiceProcess
    let api: APIClient
    let token: String

    var sourceURL: String { files.url + "/" + LiveHLSSource.playlist }

    init(serveArguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let live = try LiveHLSSource()
        source = live
        files = try StaticFileServer(folder: live.folder)
        let encoding = eventually(within: 30) { live.listedSegments.count >= 2 }
        try #require(encoding, "the encoder listed no segments: \(live.log)", sourceLocation: sourceLocation)
        service = try ServiceProcess(arguments: serveArguments)
        api = try APIClient(service)
        token = try service.token(sub: "cam", role: "streamer", streams: [Self.stream, 8])
    }

    /// `capture` of the live source to stream 7 in 2 s clips, in the background.
    func startCapture(_ extra: [String]) throws -> BackgroundRun {
        try BackgroundRun(
            [
                "capture", "--server", service.baseURL, "--stream", String(Self.stream), "--source", sourceURL,
                "--clip-seconds", "2",
            ] + extra, environment: service.runEnvironment.merging(["STREAMPREVIEW_TOKEN": token]) { $1 })
    }
}

/// Each version of a stream's preview seen in the feed, with its clip and thumbnail as served.
final class PublishedClips: Sendable {
    struct Clip {
        var item: FeedItem
        var movie: [UInt8]
        var thumbnail: [UInt8]
    }

    private let clips = Mutex<[Int64: Clip]>([:])

    var count: Int { clips.withLock { $0.count } }
    /// In version order.
    var all: [Clip] { clips.withLock { $0.values.sorted { $0.item.previewVersion < $1.item.previewVersion } } }

    /// Reads the feed once and downloads the stream's preview when it is a version not seen yet.
    func poll(_ api: APIClient, stream: Int64) {
        guard let reply = try? api.feed(), reply.status == 200,
            let item = (try? reply.json(FeedResponse.self))?.items.first(where: { $0.streamId == stream }),
            clips.withLock({ $0[item.previewVersion] == nil }),
            let movie = try? api.send("GET", item.movieUrl), movie.status == 200,
            let thumbnail = try? api.send("GET", item.thumbnailUrl), thumbnail.status == 200
        else { return }
        clips.withLock { $0[item.previewVersion] = Clip(item: item, movie: movie.body, thumbnail: thumbnail.body) }
    }
}
