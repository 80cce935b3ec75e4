import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A line `streampreview capture` printed for a published cycle.
struct CapturedLine: Equatable {
    var stream: Int64
    var version: Int64
    var bytes: Int64
    var seconds: Double

    /// `captured stream=ID version=N bytes=B seconds=S` lines of `text`, in order.
    static func all(in text: String) -> [CapturedLine] {
        text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("captured ") else { return nil }
            let fields = Dictionary(
                line.split(separator: " ").dropFirst().compactMap { pair -> (String, String)? in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { $1 })
            guard let stream = fields["stream"].flatMap({ Int64($0) }),
                let version = fields["version"].flatMap({ Int64($0) }),
                let bytes = fields["bytes"].flatMap({ Int64($0) }),
                let seconds = fields["seconds"].flatMap({ Double($0) })
            else { return nil }
            return CapturedLine(stream: stream, version: version, bytes: bytes, seconds: seconds)
        }
    }
}

extension BackgroundRun {
    /// The `captured ...` lines printed so far.
    var capturedLines: [CapturedLine] { CapturedLine.all(in: stdout) }

    /// The `error stream=... stage=STAGE ...` lines printed so far.
    func errorLines(stage: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("error ") && $0.contains(" stage=\(stage) ")
        }
    }

    /// Sends `signal` (the run is a child of this process and not yet reaped, so the pid is its).
    func send(_ signal: Int32) {
        if exitStatus == nil { _ = Glibc.kill(pid, signal) }  // ignored result: ESRCH means it just exited
    }

    /// What it printed, for failure messages.
    var output: String { "stdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// What ffprobe says of a media file, and whether every frame of its first video stream decodes.
struct ProbedMedia {
    var codec: String
    var width: Int
    var height: Int
    var duration: Double
    var decodedFrames: Int
    var audioStreams: Int

    /// Decodes all of `bytes` (written to a temp file) with ffprobe; throws when it cannot.
    static func probe(_ bytes: [UInt8], fileExtension: String) throws -> ProbedMedia {
        let ffprobe = (try FFmpegClips.ffmpegPath() as NSString).deletingLastPathComponent + "/ffprobe"
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-probe")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort
        let path = folder + "/media." + fileExtension
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let video = try ProcessResult.run(
            [
                ffprobe, "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,width,height,nb_read_frames:format=duration", "-of", "default=noprint_wrappers=1",
                path,
            ], timeout: 60)
        guard video.status == 0, video.stderr.isEmpty else {
            throw ServiceProcessError("ffprobe of \(path) failed (\(video.status)): \(video.stderr)")
        }
        let fields = Dictionary(
            video.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        let audio = try ProcessResult.run(
            [ffprobe, "-v", "error", "-select_streams", "a", "-show_entries", "stream=index", "-of", "csv=p=0", path],
            timeout: 60)
        return ProbedMedia(
            codec: fields["codec_name"] ?? "", width: fields["width"].flatMap { Int($0) } ?? 0,
            height: fields["height"].flatMap { Int($0) } ?? 0,
            duration: fields["duration"].flatMap { Double($0) } ?? 0,
            decodedFrames: fields["nb_read_frames"].flatMap { Int($0) } ?? 0,
            audioStreams: audio.stdout.split(separator: "\n").count)
    }
}

extension ProbedMedia {
    /// The mean blue-difference (Cb) and red-difference (Cr) chroma of an image, 0 to 255 (128
    /// is grey): ffmpeg's `signalstats` UAVG and VAVG.
    static func averageChroma(ofImage bytes: [UInt8]) throws -> (blue: Double, red: Double) {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-probe")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort
        let path = folder + "/image.jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try ProcessResult.run(
            [
                try FFmpegClips.ffmpegPath(), "-hide_banner", "-v", "error", "-nostdin", "-i", path, "-vf",
                "signalstats,metadata=print:file=-", "-f", "null", "-",
            ], timeout: 60)
        func value(_ key: String) -> Double? {
            result.stdout.split(separator: "\n").first { $0.hasPrefix("lavfi.signalstats.\(key)=") }
                .flatMap { Double($0.split(separator: "=")[1]) }
        }
        guard result.status == 0, let blue = value("UAVG"), let red = value("VAVG") else {
            throw ServiceProcessError("signalstats of \(path) failed (\(result.status)): \(result.stderr)")
        }
        return (blue, red)
    }
}

/// The types of an MP4's top-level boxes, in file order (`ftyp`, `moov`, `mdat`...).
func topLevelBoxes(_ bytes: [UInt8]) -> [String] {
    var types: [String] = []
    var offset = 0
    while offset + 8 <= bytes.count {
        var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
        if size == 1, offset + 16 <= bytes.count {
            size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }
        } else if size == 0 {
            size = bytes.count - offset
        }
        guard size >= 8 else { break }
        types.append(type)
        offset += size
    }
    return types
}
