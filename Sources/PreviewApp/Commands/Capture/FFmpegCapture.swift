import Foundation
import PreviewCore
import PreviewProcess
import PreviewServer

#if canImport(Glibc)
    import Glibc
#endif

/// Why a capture produced no clip.
enum CaptureFailure: Error, Equatable {
    /// The source failed, stalled, ended or sent too little: worth retrying soon.
    case source(String)
    /// A stop was requested while ffmpeg ran; it was killed.
    case stopped
}

/// One capture: ffmpeg cuts the clip into a folder, a second run takes its first frame, and the
/// clip is checked with the commit's own MP4 reader before anything is uploaded.
struct FFmpegCapture {
    /// The ffmpeg executable (an absolute path).
    let ffmpeg: String
    let source: String
    let settings: ClipSettings
    /// Seconds each ffmpeg run may take before it is killed.
    let timeoutSeconds: Int64
    let stop: CaptureStop

    /// What a capture made.
    struct Clip {
        let clipPath: String
        let thumbnailPath: String
        let bytes: Int64
        let info: MP4Info
        /// SHA-256 of the clip: the same clip twice means the source stood still.
        let digest: [UInt8]
    }

    /// Clips are refused below this share of the asked length: the source ended or stalled, and
    /// what came may be old (the last segment before a stall).
    static let minimumShare = 0.8

    /// Makes `clip.mp4` and `thumbnail.jpg` in `folder` (private to this cycle).
    func capture(in folder: String, sha256: ([UInt8]) -> [UInt8]) throws(CaptureFailure) -> Clip {
        let clipPath = folder + "/clip.mp4"
        let thumbnailPath = folder + "/thumbnail.jpg"
        let traits = SourceTraits(
            source: source, inputFormat: settings.inputFormat, isRegularFile: Self.isRegularFile(source))
        try run(
            FFmpegArguments.clip(
                ffmpeg: ffmpeg, source: source, traits: traits, settings: settings,
                readTimeoutSeconds: min(10, timeoutSeconds), output: clipPath),
            log: folder + "/clip.log", what: "reading the source")
        guard let bytes = FileManager.default.contents(atPath: clipPath).map({ [UInt8]($0) }), !bytes.isEmpty else {
            throw .source("ffmpeg wrote no clip: the source has no video")
        }
        let info = try Self.check(bytes, seconds: settings.seconds)
        try run(
            FFmpegArguments.thumbnail(ffmpeg: ffmpeg, clip: clipPath, output: thumbnailPath),
            log: folder + "/thumbnail.log", what: "taking the first frame")
        guard let thumbnail = try? FileManager.default.attributesOfItem(atPath: thumbnailPath)[.size] as? NSNumber,
            thumbnail.int64Value > 0
        else { throw .source("ffmpeg wrote no thumbnail") }
        return Clip(
            clipPath: clipPath, thumbnailPath: thumbnailPath, bytes: Int64(bytes.count), info: info,
            digest: sha256(bytes))
    }

    /// What commit will read of the clip, checked here first: a whole, fast-start MP4 with video
    /// of at least `minimumShare` of the asked length.
    static func check(_ bytes: [UInt8], seconds: Int64) throws(CaptureFailure) -> MP4Info {
        var limits = MP4Inspector.Limits()
        limits.prefixLength = bytes.count
        switch MP4Inspector.inspect(prefix: bytes, totalSize: Int64(bytes.count), limits: limits) {
        case .complete(let info):
            guard info.width > 0, info.height > 0 else { throw .source("the clip has no video track") }
            guard info.fastStart else { throw .source("ffmpeg wrote a clip that is not fast-start") }
            let wanted = Double(seconds) * 1000 * minimumShare
            guard Double(info.durationMs) >= wanted else {
                throw .source(
                    "the source gave only \(Self.seconds(info.durationMs)) s of the \(seconds) s asked (it ended or stalled)"
                )
            }
            return info
        case .invalid(let reason):
            throw .source("ffmpeg wrote an unreadable clip: \(reason)")
        case .needMore:
            throw .source("ffmpeg wrote an unreadable clip: its metadata is cut off")
        }
    }

    /// `2.04` for a duration in milliseconds.
    static func seconds(_ milliseconds: Int64) -> String {
        String(format: "%.2f", Double(milliseconds) / 1000)
    }

    /// Runs one ffmpeg command to its end, killing it when it runs past the deadline or a stop
    /// is requested; a failure carries the last line ffmpeg logged.
    private func run(_ arguments: [String], log: String, what: String) throws(CaptureFailure) {
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(arguments: arguments, stdoutPath: log, diesWithParent: true)
        } catch {
            throw .source("cannot start \(ffmpeg): \(error)")
        }
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while !child.waitForExit(timeout: 0.1) {
            if stop.isRequested {
                child.send(SIGKILL)
                _ = child.waitForExit(timeout: 10)
                throw .stopped
            }
            if ContinuousClock.now >= deadline {
                child.send(SIGKILL)
                _ = child.waitForExit(timeout: 10)
                throw .source(
                    "ffmpeg ran past its \(timeoutSeconds) s deadline while \(what) and was killed (the source stalled?)"
                )
            }
        }
        guard let termination = child.termination, termination == .exited(status: 0) else {
            let said = Self.lastLine(of: log).map { ": \($0)" } ?? ""
            throw .source("ffmpeg failed while \(what) (\(child.termination?.description ?? "unknown end"))\(said)")
        }
    }

    /// The last non-empty line of a log, cut to 300 characters.
    static func lastLine(of path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let line = text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) }
        return line.map { String($0.prefix(300)) }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
