// Real clips from Debian's `ffmpeg`, the oracle of the MP4 inspector and commit tests. Linux only.
import Foundation
import PreviewProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Makes clips with `ffmpeg`, installing Debian's package first when it is missing and we are
/// root; a test that needs it fails (never skips) when that is not possible.
public enum FFmpegClips {
    /// A 2 s, 320x240 MP4: an AAC audio track first, then an H.264 video track (x264, which
    /// Debian's ffmpeg is built with; at a quality that makes the clip outgrow a 64 KiB prefix),
    /// made once per process.
    public static func mp4(fastStart: Bool) throws -> [UInt8] {
        try (fastStart ? cachedFastStart : cachedPlain).get()
    }

    private static let cachedFastStart = Result { try generate(extraArguments: ["-movflags", "+faststart"]) }
    private static let cachedPlain = Result { try generate(extraArguments: []) }

    /// H.264 for `generate`'s video track.
    public static let h264Arguments = ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "10", "-pix_fmt", "yuv420p"]

    /// The same 2 s, 320x240 clip with `extraArguments` added before the output file (e.g. `-f mov`),
    /// its video encoded with `video` (the encoder and its settings).
    public static func generate(
        extraArguments: [String], fileExtension: String = "mp4", video: [String] = h264Arguments
    ) throws -> [UInt8] {
        let ffmpeg = try executable.get()
        let output = NSTemporaryDirectory() + "sp-mp4-\(UUID().uuidString).\(fileExtension)"
        defer { try? FileManager.default.removeItem(atPath: output) }  // best effort
        let arguments =
            [
                ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
                "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=25",
                "-map", "0:a", "-map", "1:v", "-c:a", "aac",
            ] + video + extraArguments + [output]
        let result = try run(arguments, timeout: 120)
        guard result.status == 0 else {
            throw FFmpegFailure("\(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// The `ffmpeg` executable, installed first as `mp4(fastStart:)` does; `ffprobe` is next to it.
    public static func ffmpegPath() throws -> String { try executable.get() }

    private static let executable = Result { () throws -> String in
        if let found = ChildProcess.executable(named: "ffmpeg") { return found }
        guard getuid() == 0 else {
            throw FFmpegFailure("ffmpeg not found: install Debian package ffmpeg (scripts/install-deps.sh test)")
        }
        // Waits for the dpkg lock, in case another test process installs at the same time.
        let apt = ChildProcess.executable(named: "apt-get") ?? "/usr/bin/apt-get"
        let lock = ["-o", "DPkg::Lock::Timeout=600"]
        let install = [apt] + lock + ["install", "-y", "-qq", "--no-install-recommends", "ffmpeg"]
        if try run(install, timeout: 900).status != 0 {
            _ = try run([apt] + lock + ["update", "-qq"], timeout: 900)
            _ = try run(install, timeout: 900)
        }
        guard let installed = ChildProcess.executable(named: "ffmpeg") else {
            throw FFmpegFailure("ffmpeg not found, and it could not be installed with apt-get")
        }
        return installed
    }

    private static func run(_ arguments: [String], timeout: Double) throws -> ProcessResult {
        try ProcessResult.run(arguments, timeout: timeout, environment: ["DEBIAN_FRONTEND": "noninteractive"])
    }
}

/// Why a clip could not be made.
public struct FFmpegFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
