import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Commit reads the clip's MP4 boxes: duration, size and fast-start reach the feed item, and a
/// clip that is not fast-start is published or refused as `--fast-start` says.
@Suite struct MP4CommitTests {
    /// Uploads `movie` and commits it; the commit response.
    static func commit(_ app: AppHarness, stream: Int64, movie: [UInt8]) throws -> HTTPResponse {
        let streamer = app.token("streamer-\(stream)", .streamer, streams: [stream])
        let issued = try app.upload(stream: stream, token: streamer, movie: movie, thumbnail: TestClips.jpeg)
        return app.send(
            "POST", "/api/preview/commit", token: streamer,
            json: #"{"streamId":"\#(stream)","uploadId":"\#(issued.uploadId)"}"#)
    }

    @Test func aFastStartClipFromFFmpegPublishesItsDurationAndSize() throws {
        let app = try AppHarness()
        let item = try app.publish(stream: 21, movie: try FFmpegClips.mp4(fastStart: true))
        #expect((1900...2100).contains(item.durationMs), "\(item.durationMs)")
        #expect(item.width == 320 && item.height == 240)
        #expect(item.fastStart)
        let listed = try #require(try app.feed().first)
        #expect(listed.durationMs == item.durationMs && listed.width == 320 && listed.height == 240 && listed.fastStart)

        let hash = try app.redis.connection().command(["HGETALL", RedisKeys(prefix: "t").preview(21)])
        let fields = (hash.array ?? []).compactMap(\.string)
        #expect(fields.contains("durationMs") && fields.contains("fastStart") && fields.contains("320"))
    }

    @Test func aClipThatIsNotFastStartIsPublishedWithAWarningFieldByDefault() throws {
        let app = try AppHarness()
        let clip = try FFmpegClips.mp4(fastStart: false)
        try #require(clip.count > MP4Inspector.Limits().prefixLength, "the moov must lie past the prefix")
        let item = try app.publish(stream: 22, movie: clip)
        #expect(!item.fastStart)
        #expect((1900...2100).contains(item.durationMs), "read with the second, ranged read: \(item.durationMs)")
        #expect(item.width == 320 && item.height == 240)
        let feed = app.send("GET", "/api/feed", headers: [("Accept", "application/x-protobuf")])
        let listed = try #require(try FeedResponse(protobuf: feed.bytes).items.first)
        #expect(listed.fastStart == false && listed.width == 320 && listed.durationMs == item.durationMs)
    }

    @Test func requireRefusesAClipThatIsNotFastStartAndTellsHowToFixIt() throws {
        let app = try AppHarness(fastStart: .require)
        let refused = try Self.commit(app, stream: 23, movie: try FFmpegClips.mp4(fastStart: false))
        #expect(refused.status == 422, "\(refused.text)")
        let error = try ErrorResponse(json: refused.bytes)
        #expect(error.code == "clip_not_fast_start" && error.target == "movie")
        #expect(error.message.contains("-movflags +faststart"))
        #expect(try app.feed().isEmpty)

        let accepted = try app.publish(stream: 23, movie: try FFmpegClips.mp4(fastStart: true))
        #expect(accepted.fastStart && accepted.width == 320)
    }

    @Test func requireAlsoAppliesToHandBuiltClipsWithMoovLast() throws {
        let app = try AppHarness(fastStart: .require)
        let refused = try Self.commit(app, stream: 24, movie: MP4Clip.make(fastStart: false))
        #expect(refused.errorCode == "clip_not_fast_start")
        let item = try app.publish(stream: 24, movie: MP4Clip.make(durationMs: 7250, width: 1080, height: 1920))
        #expect(item.durationMs == 7250 && item.width == 1080 && item.height == 1920 && item.fastStart)
    }

    static let unreadableClips: [(String, [UInt8])] = {
        let ftyp = Array(TestClips.mp4.prefix(24))
        let garbage: [UInt8] = ftyp + [7] + Array("garbage that is not a box at all".utf8)
        let noMoov: [UInt8] = ftyp + MP4Clip.box("mdat", [UInt8](repeating: 1, count: 64))
        let truncated: [UInt8] = Array(MP4Clip.make(fastStart: false, mdatBytes: 100).dropLast(30))
        return [
            ("garbage after ftyp", garbage), ("ftyp then mdat, no moov", noMoov), ("a truncated upload", truncated),
        ]
    }()

    @Test(arguments: unreadableClips)
    func aClipWhoseBoxesCannotBeReadIsRefusedAsContentMismatch(name: String, movie: [UInt8]) throws {
        let app = try AppHarness()
        let response = try Self.commit(app, stream: 25, movie: movie)
        #expect(response.status == 422, "\(name): \(response.text)")
        let error = try ErrorResponse(json: response.bytes)
        #expect(error.code == "object_content_mismatch" && error.target == "movie", "\(name)")
        #expect(error.message.contains("not a readable MP4"), "\(name): \(error.message)")
        #expect(try app.feed().isEmpty)
    }

    @Test func theLocalStoreReadsRangesAndAnswersNilForAMissingObject() throws {
        let app = try AppHarness()
        let bytes = (0..<100).map { UInt8($0) }
        try app.local.write(key: "previews/1/x/movie.mp4", bytes: bytes, contentType: "video/mp4")
        #expect(try app.local.read(key: "previews/1/x/movie.mp4", offset: 10, length: 5) == [10, 11, 12, 13, 14])
        #expect(try app.local.read(key: "previews/1/x/movie.mp4", offset: 95, length: 50) == [95, 96, 97, 98, 99])
        #expect(try app.local.read(key: "previews/1/x/movie.mp4", offset: 100, length: 5) == [])
        #expect(try app.local.read(key: "previews/1/x/movie.mp4", offset: 0, length: 0) == [])
        #expect(try app.local.read(key: "previews/1/x/absent.mp4", offset: 0, length: 5) == nil)
        #expect(try app.local.read(key: "../escape", offset: 0, length: 5) == nil)
        #expect(throws: StorageError.self) { try app.local.read(key: "previews/1/x/movie.mp4", offset: -1, length: 5) }
    }
}

/// `--fast-start require|warn` and `STREAMPREVIEW_FAST_START`.
@Suite struct MP4CommitOptionTests {
    @Test func fastStartDefaultsToWarnAndFlagsOverrideTheEnvironment() throws {
        #expect(ServeOptions().fastStart == .warn)
        guard
            case .serve(let fromEnvironment) = try Command.parse(
                ["serve"], environment: ["STREAMPREVIEW_FAST_START": "require"]
            ).get()
        else {
            Issue.record("not serve")
            return
        }
        #expect(fromEnvironment.fastStart == .require)
        guard
            case .serve(let fromFlag) = try Command.parse(
                ["serve", "--fast-start", "warn"], environment: ["STREAMPREVIEW_FAST_START": "require"]
            ).get()
        else {
            Issue.record("not serve")
            return
        }
        #expect(fromFlag.fastStart == .warn)
    }

    @Test(arguments: ["", "REQUIRE", "off", "true"])
    func anUnknownFastStartModeIsAUsageError(mode: String) {
        guard case .failure(let error) = Command.parse(["serve", "--fast-start=\(mode)"], environment: [:]) else {
            Issue.record("accepted --fast-start=\(mode)")
            return
        }
        #expect(error.message.contains("--fast-start must be require or warn"))
    }

    @Test func theErrorCodeIsStableAndA422() {
        #expect(APIError.Code.clipNotFastStart.rawValue == "clip_not_fast_start")
        #expect(APIError(.clipNotFastStart, "x").status == 422)
    }
}
