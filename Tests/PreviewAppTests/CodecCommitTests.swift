import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Commit reads the clip's codec from its sample description: the feed item carries it as
/// RFC 6381 has it, and a clip in a codec `--allowed-codecs` does not list (H.264 only by
/// default), or whose codec cannot be told, is refused with 422 `unsupported_codec`.
@Suite struct CodecCommitTests {
    static let hevc = Result {
        try FFmpegClips.generate(
            extraArguments: ["-movflags", "+faststart"],
            video: [
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
                "-pix_fmt", "yuv420p",
            ])
    }

    @Test func anH264ClipPublishesItsCodecsInTheItemTheFeedAndTheHash() throws {
        let app = try AppHarness()
        let item = try app.publish(stream: 31)
        #expect(item.codecs == "avc1.42E01E")
        let json = app.send("GET", "/api/feed")
        #expect(String(decoding: json.bytes, as: UTF8.self).contains(#""codecs":"avc1.42E01E""#), "\(json.text)")
        let protobuf = app.send("GET", "/api/feed", headers: [("Accept", "application/x-protobuf")])
        #expect(try FeedResponse(protobuf: protobuf.bytes).items.first?.codecs == "avc1.42E01E")
        let hash = try app.redis.connection().command(["HGET", RedisKeys(prefix: "t").preview(31), "codecs"])
        #expect(hash.string == "avc1.42E01E")
    }

    @Test func hevcIsRefusedByDefaultNamingWhatWasFoundAndWhatIsAllowed() throws {
        let app = try AppHarness()
        let refused = try MP4CommitTests.commit(app, stream: 32, movie: try Self.hevc.get())
        #expect(refused.status == 422, "\(refused.text)")
        let error = try ErrorResponse(json: refused.bytes)
        #expect(error.code == "unsupported_codec" && error.target == "movie")
        #expect(error.message.contains("HEVC (hvc1.1.6.L"), "\(error.message)")
        #expect(error.message.contains("accepts H.264"), "\(error.message)")
        #expect(try app.feed().isEmpty)
    }

    @Test func anOperatorMayAllowHEVCAndTheItemSaysSo() throws {
        let app = try AppHarness(allowedCodecs: [.h264, .hevc])
        let item = try app.publish(stream: 33, movie: try Self.hevc.get())
        #expect(item.codecs.hasPrefix("hvc1.1.6.L"), "\(item.codecs)")
        #expect(try app.feed().first?.codecs == item.codecs)
    }

    /// A clip in no codec an operator can allow, and what the refusal says of it.
    static func unallowable(_ name: String) throws -> (movie: [UInt8], said: String) {
        func renamed(_ from: String, _ to: String) -> [UInt8] {
            var clip = MP4Clip.make()
            let type = Array(from.utf8)
            if let at = (0..<clip.count - 4).first(where: { Array(clip[$0..<$0 + 4]) == type }) {
                clip.replaceSubrange(at..<at + 4, with: Array(to.utf8))
            }
            return clip
        }
        switch name {
        case "MPEG-4 Part 2":
            let clip = try FFmpegClips.generate(extraArguments: [], video: ["-c:v", "mpeg4", "-q:v", "5"])
            return (clip, "another codec (mp4v)")
        // The hand-built clip with its sample table's type changed, so no stsd is found.
        case "no sample table": return (renamed("stbl", "free"), "cannot be read")
        default: return (renamed("vide", "soun"), "no video track")
        }
    }

    @Test(arguments: ["MPEG-4 Part 2", "no sample table", "audio only"])
    func aClipInNoAllowableCodecIsRefused(name: String) throws {
        let (movie, said) = try Self.unallowable(name)
        // Every family, even `other`, which no option can name: such a clip is still refused.
        let app = try AppHarness(allowedCodecs: Set(MP4VideoCodec.Family.allCases))
        let refused = try MP4CommitTests.commit(app, stream: 34, movie: movie)
        #expect(refused.status == 422, "\(name): \(refused.text)")
        let error = try ErrorResponse(json: refused.bytes)
        #expect(error.code == "unsupported_codec", "\(name)")
        #expect(error.message.contains(said), "\(name): \(error.message)")
        #expect(try app.feed().isEmpty, "\(name)")
    }

    @Test func theErrorCodeIsStableAndA422() {
        #expect(APIError.Code.unsupportedCodec.rawValue == "unsupported_codec")
        #expect(APIError(.unsupportedCodec, "x").status == 422)
    }
}

/// `--allowed-codecs` and `STREAMPREVIEW_ALLOWED_CODECS`.
@Suite struct AllowedCodecsOptionTests {
    static func parsed(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions? {
        guard case .serve(let options) = try Command.parse(["serve"] + arguments, environment: environment).get()
        else { return nil }
        return options
    }

    @Test func h264IsTheDefaultAndFlagsOverrideTheEnvironment() throws {
        #expect(ServeOptions().allowedCodecs == [.h264])
        let fromEnvironment = try #require(
            try Self.parsed([], environment: ["STREAMPREVIEW_ALLOWED_CODECS": "hevc, AV1"]))
        #expect(fromEnvironment.allowedCodecs == [.hevc, .av1])
        let fromFlag = try #require(
            try Self.parsed(
                ["--allowed-codecs", "h264,vp9"], environment: ["STREAMPREVIEW_ALLOWED_CODECS": "hevc"]))
        #expect(fromFlag.allowedCodecs == [.h264, .vp9])
    }

    @Test(arguments: ["", "h265", "h264,", "other", "mp4v"])
    func anUnknownCodecNameIsAUsageError(list: String) {
        guard case .failure(let error) = Command.parse(["serve", "--allowed-codecs=\(list)"], environment: [:]) else {
            Issue.record("accepted --allowed-codecs=\(list)")
            return
        }
        #expect(error.message.contains("--allowed-codecs takes h264, hevc, av1, vp9"), "\(error.message)")
    }
}
