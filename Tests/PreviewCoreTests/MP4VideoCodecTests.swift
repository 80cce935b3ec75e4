import Foundation
import PreviewTestSupport
import Testing

@testable import PreviewCore

/// The codec of a clip's first video track, read from its sample description. The oracles are
/// Debian's ffmpeg: the `codecs` attribute its DASH muxer writes for the same clip (H.264, AV1
/// and VP9; for HEVC it writes the bare sample entry), and what `ffprobe` reports of the
/// sample entry, profile and level.
@Suite("MP4 video codecs: ffmpeg clips")
struct MP4VideoCodecFFmpegTests {
    struct Encoding: Sendable, CustomStringConvertible {
        let name: String
        let arguments: [String]
        var description: String { name }
    }

    static let encodings = [
        Encoding(
            name: "H.264 baseline",
            arguments: ["-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "baseline", "-pix_fmt", "yuv420p"]),
        Encoding(
            name: "H.264 high",
            arguments: ["-c:v", "libx264", "-preset", "ultrafast", "-profile:v", "high", "-pix_fmt", "yuv420p"]),
        Encoding(
            name: "AV1 4:2:0",
            arguments: ["-c:v", "libaom-av1", "-cpu-used", "8", "-row-mt", "1", "-b:v", "200k", "-pix_fmt", "yuv420p"]),
        Encoding(
            name: "AV1 4:4:4 (High profile)",
            arguments: ["-c:v", "libaom-av1", "-cpu-used", "8", "-row-mt", "1", "-b:v", "200k", "-pix_fmt", "yuv444p"]),
        Encoding(
            name: "VP9",
            arguments: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-pix_fmt", "yuv420p"]),
    ]

    @Test(arguments: encodings)
    func theCodecsStringIsTheOneFFmpegsDASHMuxerWrites(_ encoding: Encoding) throws {
        let (clip, path) = try Self.clip(encoding.arguments)
        defer { try? FileManager.default.removeItem(atPath: path) }  // best effort
        let codec = try #require(Self.codec(clip), "\(encoding)")
        let oracle = try Self.dashCodecs(path)
        // ffmpeg writes AV1's long form (colour fields after the bit depth); ours is the short
        // form the binding allows, which must be its first four fields.
        let fields = codec.codecs.uppercased().split(separator: ".")
        let oracleFields = oracle.uppercased().split(separator: ".")
        #expect(
            fields == Array(oracleFields.prefix(fields.count)), "\(encoding): ours \(codec.codecs), ffmpeg \(oracle)")
        #expect(fields.count == oracleFields.count || codec.family == .av1)
        #expect(try Self.probe(path)["codec_tag_string"] == codec.sampleEntry)
    }

    @Test(arguments: [("hvc1", ["-tag:v", "hvc1"]), ("hev1", [])])
    func hevcGivesProfileTierLevelAndConstraintsAsFFprobeReportsThem(entry: String, tag: [String]) throws {
        let arguments =
            ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p"] + tag
        let (clip, path) = try Self.clip(arguments)
        defer { try? FileManager.default.removeItem(atPath: path) }  // best effort
        let codec = try #require(Self.codec(clip))
        let probed = try Self.probe(path)
        #expect(probed["codec_tag_string"] == entry && codec.sampleEntry == entry)
        #expect(probed["profile"] == "Main")
        let level = try #require(probed["level"])
        // Main profile: profile_idc 1, compatibility flag 1 and 2 set (reversed: 0x6), main tier;
        // x265 marks progressive, frame-only content (constraint byte 0x90 or 0xB0).
        #expect(codec.codecs.hasPrefix("\(entry).1.6.L\(level)."), "\(codec.codecs)")
        #expect(codec.family == .hevc)
    }

    @Test func mpeg4Part2IsAnotherCodecNamedByItsSampleEntry() throws {
        let (clip, path) = try Self.clip(["-c:v", "mpeg4", "-q:v", "5"])
        defer { try? FileManager.default.removeItem(atPath: path) }  // best effort
        let codec = try #require(Self.codec(clip))
        #expect(codec == MP4VideoCodec(sampleEntry: "mp4v", family: .other, codecs: "mp4v"))
    }

    @Test func theTestSupportClipsAreH264() throws {
        #expect(Self.codec(TestMedia.mp4())?.codecs == "avc1.42E01E")
        let clip = try FFmpegClips.mp4(fastStart: true)
        #expect(Self.codec(clip)?.family == .h264)
    }

    /// A 2 s clip made with `video` (and AAC audio), as bytes and as a file for ffmpeg to read again.
    static func clip(_ video: [String]) throws -> ([UInt8], String) {
        let bytes = try FFmpegClips.generate(extraArguments: ["-movflags", "+faststart"], video: video)
        let path = NSTemporaryDirectory() + "sp-codec-\(UUID().uuidString).mp4"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (bytes, path)
    }

    static func codec(_ clip: [UInt8]) -> MP4VideoCodec? {
        guard case .complete(let info) = MP4Run.inspect(clip).final, case .video(let codec) = info.sampleDescription
        else { return nil }
        return codec
    }

    /// The `codecs` attribute of the video representation in the MPD ffmpeg writes for `path`.
    static func dashCodecs(_ path: String) throws -> String {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-dash")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort
        let result = try ProcessResult.run(
            [
                try FFmpegClips.ffmpegPath(), "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-i", path,
                "-map",
                "0:v", "-c", "copy", "-f", "dash", folder + "/out.mpd",
            ], timeout: 120)
        try #require(result.status == 0, "\(result.stderr)")
        let mpd = try String(contentsOfFile: folder + "/out.mpd", encoding: .utf8)
        let range = try #require(mpd.range(of: #"codecs="[^"]+""#, options: .regularExpression), "\(mpd)")
        return String(mpd[range].dropFirst(8).dropLast())
    }

    /// `ffprobe`'s view of the first video stream: codec_tag_string, profile, level.
    static func probe(_ path: String) throws -> [String: String] {
        let ffprobe = (try FFmpegClips.ffmpegPath() as NSString).deletingLastPathComponent + "/ffprobe"
        let result = try ProcessResult.run(
            [
                ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
                "stream=codec_tag_string,profile,level", "-of", "default=noprint_wrappers=1", path,
            ], timeout: 60)
        try #require(result.status == 0, "\(result.stderr)")
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }
}

/// Sample descriptions built by hand: the configuration boxes' fields, and the ways a sample
/// description can be missing or cut short.
@Suite("MP4 video codecs: sample descriptions")
struct MP4VideoCodecTests {
    @Test func hevcStringsFollowAnnexE() {
        // ISO/IEC 14496-15 Annex E's examples: Main profile, level 3.1, progressive and frame only.
        let main: [UInt8] = [1, 0x01, 0x60, 0, 0, 0, 0xB0, 0, 0, 0, 0, 0, 93]
        #expect(MP4SampleEntryReader.hevc("hvc1", main[...])?.codecs == "hvc1.1.6.L93.B0")
        // Main 10, high tier, level 4, profile space A, two constraint bytes.
        let main10: [UInt8] = [1, 0x62, 0x20, 0, 0, 0, 0x90, 0x01, 0, 0, 0, 0, 120]
        #expect(MP4SampleEntryReader.hevc("hev1", main10[...])?.codecs == "hev1.A2.4.H120.90.01")
        #expect(MP4SampleEntryReader.hevc("hvc1", main.prefix(12)) == nil)
    }

    @Test func av1AndVP9CarryProfileLevelTierAndBitDepth() {
        // seq_profile 0, level 8 (4.0), high tier, 10 bits.
        #expect(MP4SampleEntryReader.av1([0x81, 0x08, 0xC0, 0])?.codecs == "av01.0.08H.10")
        #expect(MP4SampleEntryReader.av1([0x81, 0x24, 0x60, 0])?.codecs == "av01.1.04M.12")
        #expect(MP4SampleEntryReader.av1([0x01, 0x08, 0xC0, 0]) == nil, "not the av1C marker")
        // vpcC version 1: profile 2, level 41, 10 bits.
        #expect(MP4SampleEntryReader.vp9([1, 0, 0, 0, 2, 41, 0xA0, 1])?.codecs == "vp09.02.41.10")
        #expect(MP4SampleEntryReader.vp9([0, 0, 0, 0, 2, 41, 0xA0, 1]) == nil, "vpcC version 0")
    }

    @Test func bitsReverse() {
        #expect(UInt32(0x6000_0000).bitReversed == 6)
        #expect(UInt32(1).bitReversed == 0x8000_0000)
        #expect(UInt32(0xF0F0_0000).bitReversed == 0x0F0F)
    }

    /// A fast-start clip whose video track's `stbl` holds `stsd` with `payload`, or no `stsd`.
    static func clip(stsd payload: [UInt8]?) -> [UInt8] {
        typealias B = MP4Build
        let stbl = B.box("stbl", payload.map { B.box("stsd", $0) } ?? B.box("stts", [0, 0, 0, 0, 0, 0, 0, 0]))
        let trak = B.box(
            "trak",
            B.tkhd(width: 320 << 16, height: 240 << 16) + B.box("mdia", B.mdhd() + B.hdlr("vide") + B.box("minf", stbl))
        )
        return B.ftyp() + B.moov(B.mvhd(timescale: 1000, duration: 2000), trak) + B.mdat(100)
    }

    static func description(_ clip: [UInt8]) -> MP4SampleDescription? {
        guard case .complete(let info) = MP4Run.inspect(clip).final else { return nil }
        return info.sampleDescription
    }

    @Test(
        arguments: [
            ("no stsd", nil, "no stsd"),
            ("no entry", [0, 0, 0, 0, 0, 0, 0, 0], "no sample entry"),
            (
                "entry cut short", [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12] + Array("avc1".utf8) + [0, 0, 0, 0],
                "too short"
            ),
            (
                "avc1 without avcC",
                [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 86] + Array("avc1".utf8) + [UInt8](repeating: 0, count: 78),
                "no readable codec configuration"
            ),
        ] as [(String, [UInt8]?, String)])
    func anUnreadableSampleDescriptionIsSaidSoNotGuessed(name: String, stsd: [UInt8]?, reason: String) {
        let found = Self.description(Self.clip(stsd: stsd))
        guard case .unreadable(let said)? = found else {
            Issue.record("\(name): \(String(describing: found))")
            return
        }
        #expect(said.contains(reason), "\(name): \(said)")
    }

    @Test func anAudioOnlyClipHasNoVideoTrack() {
        let moov = MP4Build.moov(
            MP4Build.mvhd(timescale: 1000, duration: 2000), MP4Build.trak(handler: "soun", width: 0, height: 0))
        #expect(Self.description(MP4Build.ftyp() + moov + MP4Build.mdat(10)) == .noVideoTrack)
    }

    @Test func aValidSampleDescriptionReadsAsItsCodec() {
        let entry = [UInt8](repeating: 0, count: 78) + MP4Build.box("avcC", [1, 0x64, 0x00, 0x1F, 0xFF, 0xE0, 0])
        let stsd = [0, 0, 0, 0, 0, 0, 0, 1] + MP4Build.box("avc3", entry)
        let expected = MP4VideoCodec(sampleEntry: "avc3", family: .h264, codecs: "avc3.64001F")
        #expect(Self.description(Self.clip(stsd: stsd)) == .video(expected))
    }

    @Test func everyPrefixOfTheSampleDescriptionIsReadWithoutATrap() {
        let clip = TestMedia.mp4()
        for length in stride(from: 0, through: clip.count, by: 1) {
            _ = MP4Inspector.inspect(prefix: Array(clip.prefix(length)), totalSize: Int64(length))
        }
    }
}
