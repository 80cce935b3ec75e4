import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Real clips from Debian's `ffmpeg` as the oracle: what it was told to write (2 s, 320x240,
/// moov first or last) is what the inspector must read.
@Suite("MP4Inspector: ffmpeg clips")
struct MP4InspectorFFmpegTests {
    @Test func aFastStartClipFromFFmpegIsReadFromItsFirstBytes() throws {
        let clip = try FFmpegClips.mp4(fastStart: true)
        let (first, _) = MP4Run.inspect(clip)
        let info = try #require(MP4Run.info(first), "\(first)")
        #expect((1900...2100).contains(info.durationMs), "\(info.durationMs)")
        #expect(info.width == 320 && info.height == 240)
        #expect(info.fastStart)
    }

    @Test func aClipFromFFmpegWithoutFaststartNeedsOneMoreReadAndIsNotFastStart() throws {
        let clip = try FFmpegClips.mp4(fastStart: false)
        try #require(clip.count > 64 * 1024, "the clip must outgrow the prefix to test the second read")
        let (first, final) = MP4Run.inspect(clip)
        guard case .needMore(let offset, let length) = first else {
            Issue.record("expected a second read, got \(first)")
            return
        }
        #expect(Int(offset) + length == clip.count, "the tail after mdat is read")
        let info = try #require(MP4Run.info(final), "\(final)")
        #expect((1900...2100).contains(info.durationMs), "\(info.durationMs)")
        #expect(info.width == 320 && info.height == 240)
        #expect(!info.fastStart)
    }

    @Test func aQuickTimeMovieFromFFmpegIsRead() throws {
        let clip = try FFmpegClips.generate(extraArguments: ["-f", "mov"], fileExtension: "mov")
        let info = try #require(MP4Run.info(MP4Run.inspect(clip).final))
        #expect((1900...2100).contains(info.durationMs), "\(info.durationMs)")
        #expect(info.width == 320 && info.height == 240)
        #expect(!info.fastStart)
    }

    @Test func everyPrefixLengthOfARealClipGivesTheSameAnswer() throws {
        let clip = try FFmpegClips.mp4(fastStart: true)
        let expected = MP4Run.inspect(clip).final
        for prefixLength in [0, 1, 8, 27, 28, 29, 36, 100, 1000, 2749, 2750, 2751, 4096] {
            #expect(MP4Run.inspect(clip, prefixLength: prefixLength).final == expected, "prefix \(prefixLength)")
        }
    }
}
