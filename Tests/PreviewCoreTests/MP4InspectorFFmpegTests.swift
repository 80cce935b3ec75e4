import Foundation
import PreviewCore
import Testing

/// Real clips from Debian's `ffmpeg` as the oracle: what it was told to write (2 s, 320x240,
/// moov first or last) is what the inspector must read.
@Suite("MP4Inspector: ffmpeg clips")
struct MP4InspectorFFmpegTests {
    @Test func aFastStartClipFromFFmpegIsReadFromItsFirstBytes() throws {
        let clip = try FFmpegClip.mp4(fastStart: true)
        let (first, _) = MP4Run.inspect(clip)
        let info = try #require(MP4Run.info(first), "\(first)")
        #expect((1900...2100).contains(info.durationMs), "\(info.durationMs)")
        #expect(info.width == 320 && info.height == 240)
        #expect(info.fastStart)
    }

    @Test func aClipFromFFmpegWithoutFaststartNeedsOneMoreReadAndIsNotFastStart() throws {
        let clip = try FFmpegClip.mp4(fastStart: false)
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
        let clip = try FFmpegClip.generate(extraArguments: ["-f", "mov"], fileExtension: "mov")
        let info = try #require(MP4Run.info(MP4Run.inspect(clip).final))
        #expect((1900...2100).contains(info.durationMs), "\(info.durationMs)")
        #expect(info.width == 320 && info.height == 240)
        #expect(!info.fastStart)
    }

    @Test func everyPrefixLengthOfARealClipGivesTheSameAnswer() throws {
        let clip = try FFmpegClip.mp4(fastStart: true)
        let expected = MP4Run.inspect(clip).final
        for prefixLength in [0, 1, 8, 27, 28, 29, 36, 100, 1000, 2749, 2750, 2751, 4096] {
            #expect(MP4Run.inspect(clip, prefixLength: prefixLength).final == expected, "prefix \(prefixLength)")
        }
    }
}

/// Makes clips with `ffmpeg`, installing Debian's package first when it is missing and we are
/// root; a test that needs it fails (never skips) when that is not possible.
enum FFmpegClip {
    /// A 2 s, 320x240 MP4: an AAC audio track first, then an MPEG-4 Part 2 video track
    /// (encoders built into ffmpeg itself, so any Debian build has them).
    static func mp4(fastStart: Bool) throws -> [UInt8] {
        try (fastStart ? cachedFastStart : cachedPlain).get()
    }

    private static let cachedFastStart = Result { try generate(extraArguments: ["-movflags", "+faststart"]) }
    private static let cachedPlain = Result { try generate(extraArguments: []) }

    static func generate(extraArguments: [String], fileExtension: String = "mp4") throws -> [UInt8] {
        let ffmpeg = try executable.get()
        let output = NSTemporaryDirectory() + "sp-mp4-\(UUID().uuidString).\(fileExtension)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let arguments =
            [
                "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=25",
                "-map", "0:a", "-map", "1:v", "-c:a", "aac", "-c:v", "mpeg4", "-q:v", "5",
            ] + extraArguments + [output]
        let status = try run(ffmpeg, arguments)
        guard status == 0 else { throw FFmpegFailure("ffmpeg \(arguments.joined(separator: " ")) exited \(status)") }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    private static let executable = Result { () throws -> String in
        if let found = locate("ffmpeg") { return found }
        guard getuid() == 0 else {
            Issue.record("ffmpeg not found: install Debian package ffmpeg (scripts/install-deps.sh test)")
            throw FFmpegFailure("ffmpeg not found and not root")
        }
        // Waits for the dpkg lock, in case another test process installs at the same time.
        let apt = locate("apt-get") ?? "/usr/bin/apt-get"
        let lock = ["-o", "DPkg::Lock::Timeout=600"]
        if try run(apt, lock + ["install", "-y", "-qq", "--no-install-recommends", "ffmpeg"]) != 0 {
            _ = try run(apt, lock + ["update", "-qq"])
            _ = try run(apt, lock + ["install", "-y", "-qq", "--no-install-recommends", "ffmpeg"])
        }
        guard let installed = locate("ffmpeg") else {
            Issue.record("ffmpeg could not be installed with apt-get")
            throw FFmpegFailure("ffmpeg could not be installed")
        }
        return installed
    }

    private static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a program with stdin and stdout closed off, its stderr passed through.
    private static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DEBIAN_FRONTEND"] = "noninteractive"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct FFmpegFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
